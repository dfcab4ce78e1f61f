/* The exact negamax in C: a faithful port of noughts/exact/negamax.py's
 * ExactSearch._negamax, normal play and misère (the rule's branches are in the same
 * function there too). Every branch, move order, table rule and node count is the
 * reference's; read that module for the why of each step.
 *
 * One difference of representation, none of meaning: the reference carries the lines
 * open to each side as bit sets over line numbers, which a C word holds only up to 64
 * lines. A line is open to a side exactly when the other side has no mark on it, so
 * here the bitboards answer "is this line open to me" and each side carries only the
 * count of its open lines (the reference asks of its sets only that, beyond the lines
 * through a cell): one code path for boards of any number of lines.
 *
 * One search object may serve several threads, as the reference does: its table and
 * node counter are shared, each call's limit travels with the call (a Run on the C
 * stack), and no pointer into the table is held across a child search (the table may
 * grow there). A call searches without the GIL, holding the object's lock: calls from
 * several threads take turns. */
#include "core.h"

#include <stdlib.h>

#define EXACT 0
#define LOWER 1
#define UPPER 2
#define OFFSET 4096 /* packed entry = (score + OFFSET) << 12 | (move + 1) << 2 | flag */
#define MOVE_MASK 1023
#define POLL_NODES 1024

typedef struct {
    PyObject_HEAD
    Tables *tables;                /* the board's lines */
    int cells, k, nlines, nsym, misere, win_score;
    int canonical_marks, book_marks, dynamic_empties;
    bb_t full;
    const bb_t *lines;             /* the tables' */
    int through_start[MAX_CELLS + 1];
    bb_t *through;                 /* the lines through each cell, in line order */
    int *through_index;            /* ... and their numbers */
    const uint8_t (*line_cells)[MAX_K];  /* each line's cells (the tables') */
    uint8_t order[MAX_CELLS];      /* the static move order */
    int64_t weights[MAX_K + 1];
    uint8_t perms[MAX_KEY_SYMMETRIES][MAX_CELLS]; /* the key symmetries' cell maps */
    uint8_t inverses[MAX_KEY_SYMMETRIES][MAX_CELLS];
    uint64_t *book_keys;           /* the book: canonical keys ascending, scores */
    int16_t *book_scores;
    int64_t book_size;
    Map table;
    int64_t max_entries;
    int64_t nodes, next_poll;
    PyThread_type_lock lock; /* held by a call into the table (a search runs without the GIL) */
} Exact;

/* One call: its limit (what the reference keeps in its context variable) and the move
 * ordering's weights of the position being searched, kept up to date move by move. */
typedef struct {
    Exact *exact;
    Poll poll;
    int has_limit;
    int64_t start;
    int stop; /* why the search stops (STOP_LIMIT...); unwind */
    int dynamic_empties;
    int64_t *line_weights;            /* each line's weight (for each side open to) */
    int64_t cell_weights[MAX_CELLS];  /* the sum of the weights of the lines through */
} Run;

static PyTypeObject *ExactType = NULL;

/* -- keys ------------------------------------------------------------------------------ */
static inline bb_t image(const uint8_t *perm, bb_t cells) {
    bb_t result = 0;
    for (; cells; cells &= cells - 1) result |= (bb_t)1 << perm[lowest(cells)];
    return result;
}

/* SymmetryKeys.key_and_symmetry: the least word me | opp << cells over the images, and
 * the first symmetry giving it. Words compare by opp's image first, so me's image is
 * made only where opp's does not already lose. */
static word_t canonical_key(const Exact *e, bb_t me, bb_t opp, int *symmetry) {
    bb_t best_opp = image(e->perms[0], opp), best_me = image(e->perms[0], me);
    int best = 0;
    for (int s = 1; s < e->nsym; s++) {
        bb_t theirs = image(e->perms[s], opp);
        if (theirs > best_opp) continue;
        bb_t mine = image(e->perms[s], me);
        if (theirs < best_opp || mine < best_me) {
            best_opp = theirs;
            best_me = mine;
            best = s;
        }
    }
    *symmetry = best;
    return (word_t)best_me | (word_t)best_opp << e->cells;
}

static inline word_t raw_key(const Exact *e, bb_t me, bb_t opp) {
    return (word_t)me | (word_t)opp << e->cells;
}

/* Book.get: the book's score of a canonical key; 0 if absent, 1 if found. */
static int book_get(const Exact *e, word_t key, int *score) {
    if (e->book_size == 0 || key >> 64) return 0;
    uint64_t wanted = (uint64_t)key;
    int64_t low = 0, high = e->book_size;
    while (low < high) {
        int64_t middle = low + (high - low) / 2;
        if (e->book_keys[middle] < wanted) low = middle + 1;
        else high = middle;
    }
    if (low < e->book_size && e->book_keys[low] == wanted) {
        *score = e->book_scores[low];
        return 1;
    }
    return 0;
}

/* -- the limit ------------------------------------------------------------------------- */
/* ExactSearch._poll: 0 to go on, else the search stops (the node stays counted). */
static int poll(Run *run) {
    Exact *e = run->exact;
    e->next_poll = e->nodes + POLL_NODES;
    if (!run->has_limit) return 0;
    if (poll_expired(&run->poll, e->nodes - run->start)) {
        run->stop = STOP_LIMIT;
        return 1;
    }
    __int128 end = (__int128)run->start + run->poll.node_limit; /* (both within 2**62) */
    if (run->poll.has_nodes && end < e->next_poll) e->next_poll = (int64_t)end;
    return 0;
}

/* -- move ordering --------------------------------------------------------------------- */
/* A line's weight in ExactSearch._ordered: for each side it is open to, the weight of
 * that side's marks on it (the same from either side's view). */
static inline int64_t line_weight(const Exact *e, bb_t line, bb_t me, bb_t opp) {
    int64_t weight = 0;
    if (!(line & opp)) weight += e->weights[popcount(line & me)];
    if (!(line & me)) weight += e->weights[popcount(line & opp)];
    return weight;
}

/* Every line's weight and every cell's sum of them, for the position (me, opp). */
static void weigh(Run *run, bb_t me, bb_t opp) {
    const Exact *e = run->exact;
    for (int i = 0; i < e->nlines; i++) run->line_weights[i] = line_weight(e, e->lines[i], me, opp);
    for (int cell = 0; cell < e->cells; cell++) {
        int64_t sum = 0;
        for (int i = e->through_start[cell]; i < e->through_start[cell + 1]; i++)
            sum += run->line_weights[e->through_index[i]];
        run->cell_weights[cell] = sum;
    }
}

/* Add delta to the weight of line i and of the cells on it. */
static inline void shift_line(Run *run, int i, int64_t delta) {
    const Exact *e = run->exact;
    run->line_weights[i] += delta;
    for (int j = 0; j < e->k; j++) run->cell_weights[e->line_cells[i][j]] += delta;
}

/* ExactSearch._ordered's first cell of cells (not empty): the highest weight of its
 * lines, then the lowest cell (each cell ranked weight * 64 + 63 - cell). Moves are
 * picked one at a time as the search needs them: a node cut off after its first moves
 * never ranks the rest (the same order as sorting them all). */
static int pick(const Run *run, bb_t cells) {
    int best = lowest(cells);
    int64_t top = run->cell_weights[best] * 64 + (63 - best);
    for (cells &= cells - 1; cells; cells &= cells - 1) {
        int cell = lowest(cells);
        int64_t rank = run->cell_weights[cell] * 64 + (63 - cell);
        if (rank > top) {
            top = rank;
            best = cell;
        }
    }
    return best;
}

/* -- the search ------------------------------------------------------------------------ */
static int negamax(Run *run, bb_t me, bb_t opp, int marks, int my_live, int opp_live,
                   bb_t my_wins, bb_t opp_wins, int alpha, int beta) {
    Exact *e = run->exact;
    const int win = e->win_score, misere = e->misere;
    e->nodes++;
    if (e->nodes >= e->next_poll && poll(run)) return 0;
    bb_t safe = 0;
    if (misere) {
        if (marks == e->cells) return 0;
        safe = e->full & ~(me | opp) & ~my_wins;
        if (!safe) return marks + 1 - win; /* every cell completes a line of ours */
    } else if (my_wins) {
        return win - marks - 1;
    } else if (marks == e->cells) {
        return 0;
    } else if (opp_wins & (opp_wins - 1)) {
        return marks + 2 - win; /* two threats: one is blocked, the other wins */
    }
    if (!my_live && !opp_live) return 0; /* no line is open to anyone */
    int upper, lower;
    if (misere) {
        upper = opp_live ? win - marks - 2 : 0;
        lower = my_live ? marks + 3 - win : 0;
    } else {
        upper = my_live ? win - marks - 3 : 0;
        lower = opp_live ? marks + 4 - win : 0;
    }
    if (upper <= alpha) return upper;
    if (lower >= beta) return lower;
    if (beta > upper) beta = upper;
    if (alpha < lower) alpha = lower;

    int canonical = marks <= e->canonical_marks, symmetry = 0;
    word_t key;
    if (canonical) {
        key = canonical_key(e, me, opp, &symmetry);
        int known;
        if (marks <= e->book_marks && book_get(e, key, &known)) return known;
    } else {
        key = raw_key(e, me, opp);
    }
    int tt_move = -1;
    const int64_t *found = map_get(&e->table, key);
    if (found != NULL) {
        int64_t entry = *found;
        int stored = (int)(entry >> 12) - OFFSET, flag = (int)(entry & 3);
        if (flag == EXACT) return stored;
        if (flag == LOWER) {
            if (stored >= beta) return stored;
            if (stored > alpha) alpha = stored;
        } else if (stored <= alpha) {
            return stored;
        } else if (stored < beta) {
            beta = stored;
        }
        tt_move = (int)(entry >> 2 & MOVE_MASK) - 1;
        if (canonical && tt_move >= 0) tt_move = e->inverses[symmetry][tt_move];
    }

    /* The moves: the forced block; else the table's move first, then the others where
     * more than dynamic_empties cells are empty by their lines' weights (picked as they
     * are needed, from left), else in the static order. */
    int moves[MAX_CELLS], count = 0, next = -1;
    bb_t left = 0;
    if (opp_wins && !misere) {
        moves[count++] = highest(opp_wins); /* the forced block */
        next = moves[0];
    } else {
        if (!misere) safe = e->full & ~(me | opp);
        if (e->cells - marks > run->dynamic_empties) {
            next = tt_move >= 0 && safe >> tt_move & 1 ? tt_move : pick(run, safe);
            left = safe & ~((bb_t)1 << next);
        } else {
            for (int i = 0; i < e->cells; i++)
                if (safe >> e->order[i] & 1) moves[count++] = e->order[i];
            if (count && tt_move >= 0 && tt_move != moves[0]) {
                int at = 0;
                while (at < count && moves[at] != tt_move) at++;
                if (at < count) {
                    for (; at > 0; at--) moves[at] = moves[at - 1];
                    moves[0] = tt_move;
                }
            }
            if (count) next = moves[0];
        }
    }

    /* the child orders its moves by weights: keep them up to date through its move */
    int weighed = e->cells - marks - 1 > run->dynamic_empties;
    int window_alpha = alpha, best = -win, best_move = -1;
    for (int index = 0; next >= 0; index++) {
        int cell = next;
        if (left) {
            next = pick(run, left);
            left &= ~((bb_t)1 << next);
        } else {
            next = index + 1 < count ? moves[index + 1] : -1;
        }
        bb_t bit = (bb_t)1 << cell, mine = me | bit, threats = my_wins;
        int closed = 0; /* lines open to the opponent that this mark closes */
        int64_t shifts[MAX_THROUGH];
        for (int i = e->through_start[cell], j = 0; i < e->through_start[cell + 1]; i++, j++) {
            bb_t line = e->through[i];
            if (!(line & opp)) {
                bb_t rest = line & ~mine;
                if (!(rest & (rest - 1))) threats |= rest;
            }
            if (!(line & me)) closed++;
            if (weighed) {
                int number = e->through_index[i];
                shifts[j] = line_weight(e, line, mine, opp) - run->line_weights[number];
                if (shifts[j]) shift_line(run, number, shifts[j]);
            }
        }
        if (marks + 1 > e->canonical_marks) {
            map_prefetch(&e->table, raw_key(e, opp, mine));
            if (next >= 0) map_prefetch(&e->table, raw_key(e, opp, me | (bb_t)1 << next));
        }
        int score = -negamax(run, opp, mine, marks + 1, opp_live - closed, my_live,
                             opp_wins & ~bit, threats, -beta, -alpha);
        if (weighed)
            for (int i = e->through_start[cell], j = 0; i < e->through_start[cell + 1]; i++, j++)
                if (shifts[j]) shift_line(run, e->through_index[i], -shifts[j]);
        if (run->stop) return 0;
        if (score > best) {
            best = score;
            best_move = cell;
            if (score > alpha) {
                alpha = score;
                if (alpha >= beta) break;
            }
        }
    }

    int flag = best <= window_alpha ? UPPER : best >= beta ? LOWER : EXACT;
    if (canonical && best_move >= 0) best_move = e->perms[symmetry][best_move];
    if ((int64_t)e->table.count >= e->max_entries) map_clear(&e->table);
    int64_t packed = (int64_t)(best + OFFSET) << 12 | (int64_t)(best_move + 1) << 2 | flag;
    if (map_put(&e->table, key, packed) < 0) {
        run->stop = STOP_MEMORY;
        return 0;
    }
    return best;
}

/* -- Python -------------------------------------------------------------------------- */
/* Copy a buffer of count items of size bytes each (an array('Q') or array('h')). */
static void *buffer_copy(PyObject *object, Py_ssize_t size, Py_ssize_t *count) {
    Py_buffer view;
    if (PyObject_GetBuffer(object, &view, PyBUF_SIMPLE) < 0) return NULL;
    void *copy = NULL;
    if (view.len % size) {
        PyErr_SetString(PyExc_ValueError, "book: a buffer of another item size");
    } else {
        copy = PyMem_Malloc(view.len ? (size_t)view.len : 1);
        if (copy == NULL) PyErr_NoMemory();
        else memcpy(copy, view.buf, (size_t)view.len);
        *count = view.len / size;
    }
    PyBuffer_Release(&view);
    return copy;
}

/* The search's board (the tables' lines, and the lines through each cell side by side)
 * and its move ordering's weights; -1 out of memory (no Python call). */
static int setup(Exact *e, Tables *t) {
    e->tables = t;
    e->cells = t->cells;
    e->k = t->k;
    e->nlines = t->nlines;
    e->full = t->full;
    e->lines = t->lines;
    e->line_cells = t->line_cells;
    e->next_poll = POLL_NODES;
    for (int marks = 0; marks <= e->k; marks++) {
        int64_t weight = 1 + ((int64_t)1 << (2 * marks));
        e->weights[marks] = e->misere ? -weight : weight;
    }
    size_t size = (size_t)(t->nlines ? t->nlines : 1) * (size_t)t->k;
    e->through = malloc(size * sizeof(bb_t));
    e->through_index = malloc(size * sizeof(int));
    if (e->through == NULL || e->through_index == NULL) return -1;
    int at = 0;
    for (int cell = 0; cell < t->cells; cell++) {
        e->through_start[cell] = at;
        for (int j = 0; j < t->through_count[cell]; j++) {
            e->through_index[at] = t->through[cell][j];
            e->through[at++] = t->lines[t->through[cell][j]];
        }
    }
    e->through_start[t->cells] = at;
    return map_init(&e->table, 1024);
}

/* Exact(tables, order, win_score, misere, perms, canonical_marks, book_marks, book_keys,
 * book_scores, max_entries, dynamic_empties): see noughts.search.core. */
static PyObject *exact_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    long long max_entries;
    PyObject *tables, *order, *perms, *book_keys, *book_scores;
    Exact *e = object_new(type);
    if (e == NULL) return NULL;
    e->lock = PyThread_allocate_lock();
    if (e->lock == NULL) {
        Py_DECREF((PyObject *)e);
        return PyErr_NoMemory();
    }
    uint8_t unused[MAX_CELLS];
    if (!parse_new(args, kwargs, "Exact", "O!OipOiiOOLi", TablesType, &tables, &order,
                   &e->win_score, &e->misere, &perms, &e->canonical_marks, &e->book_marks,
                   &book_keys, &book_scores, &max_entries, &e->dynamic_empties))
        return made(e);
    e->max_entries = max_entries;
    Py_INCREF(tables);
    if (setup(e, (Tables *)tables) < 0) return PyErr_NoMemory(), made(e);
    if (e->win_score < 2 * MAX_CELLS || e->win_score >= OFFSET)
        PyErr_SetString(PyExc_ValueError, "win_score out of range");
    else if (read_permutation(order, e->cells, e->order, unused,
                              "order: not a permutation of the cells") == 0)
        e->nsym = read_perms(perms, e->cells, MAX_KEY_SYMMETRIES, e->perms, e->inverses,
                             "perms: not a permutation of the cells");
    if (!PyErr_Occurred() && book_keys != Py_None) {
        Py_ssize_t nkeys = 0, nscores = 0;
        e->book_keys = buffer_copy(book_keys, sizeof(uint64_t), &nkeys);
        if (e->book_keys != NULL)
            e->book_scores = buffer_copy(book_scores, sizeof(int16_t), &nscores);
        if (e->book_scores != NULL && nkeys != nscores)
            PyErr_SetString(PyExc_ValueError, "book: one score per key");
        e->book_size = nkeys;
    }
    return made(e);
}

static void exact_dealloc(PyObject *self) {
    Exact *e = (Exact *)self;
    map_free(&e->table);
    free(e->through);
    free(e->through_index);
    PyMem_Free(e->book_keys);
    PyMem_Free(e->book_scores);
    Py_XDECREF((PyObject *)e->tables);
    if (e->lock != NULL) PyThread_free_lock(e->lock);
    object_free(self);
}

/* A window bound: any int, clamped to just outside the scores (the same search). */
static int as_bound(Exact *e, PyObject *value, int *out) {
    int64_t bound, edge = e->win_score + 1;
    if (as_count(value, &bound) < 0) return -1;
    *out = (int)(bound > edge ? edge : bound < -edge ? -edge : bound);
    return 0;
}

/* ExactSearch.search of (me, opp) in the window: the state (ExactSearch._state: the
 * lines open to each side, the cells completing one), the weights, the negamax. Without
 * the GIL, holding the search's lock (waited for while the limit lasts). */
static int run_search(Run *run, bb_t me, bb_t opp, int alpha, int beta) {
    Exact *e = run->exact;
    if (lock_polled(e->lock, &run->poll, 0) < 0) {
        run->stop = STOP_LIMIT;
        return 0;
    }
    e->next_poll = e->nodes + 1; /* the call's limit is polled at its first node */
    int my_live = 0, opp_live = 0;
    bb_t my_wins = 0, opp_wins = 0;
    for (int i = 0; i < e->nlines; i++) {
        bb_t line = e->lines[i];
        if (!(line & opp)) {
            my_live++;
            bb_t rest = line & ~me;
            if (rest && !(rest & (rest - 1))) my_wins |= rest;
        }
        if (!(line & me)) {
            opp_live++;
            bb_t rest = line & ~opp;
            if (rest && !(rest & (rest - 1))) opp_wins |= rest;
        }
    }
    run->dynamic_empties = e->dynamic_empties;
    weigh(run, me, opp);
    int score = negamax(run, me, opp, popcount(me | opp), my_live, opp_live, my_wins,
                        opp_wins, alpha, beta);
    PyThread_release_lock(e->lock);
    return score;
}

/* search(me, opp, alpha, beta, limit, start): ExactSearch.search within the call's limit
 * (None for none), its node limit counting the nodes from start. */
static PyObject *exact_search(PyObject *self, PyObject *args) {
    Exact *e = (Exact *)self;
    PyObject *me_obj, *opp_obj, *alpha_obj, *beta_obj, *limit, *start;
    Run run = {.exact = e};
    bb_t me, opp;
    int alpha, beta, score = 0;
    if (!PyArg_ParseTuple(args, "OOOOOO", &me_obj, &opp_obj, &alpha_obj, &beta_obj, &limit,
                          &start) ||
        as_count(start, &run.start) < 0 ||
        read_position(me_obj, opp_obj, NULL, e->full, &me, &opp) < 0 ||
        as_bound(e, alpha_obj, &alpha) < 0 || as_bound(e, beta_obj, &beta) < 0 ||
        poll_set(&run.poll, limit) < 0)
        return NULL;
    run.has_limit = run.poll.active;
    run.line_weights = malloc((size_t)(e->nlines ? e->nlines : 1) * sizeof(int64_t));
    if (run.line_weights == NULL) run.stop = STOP_MEMORY;
    Py_BEGIN_ALLOW_THREADS
    if (!run.stop) score = run_search(&run, me, opp, alpha, beta);
    Py_END_ALLOW_THREADS
    poll_clear(&run.poll);
    free(run.line_weights);
    if (run.stop) return stopped(&run.stop);
    return PyLong_FromLong(score);
}

static PyObject *exact_get(PyObject *self, PyObject *key_obj) {
    Exact *e = (Exact *)self;
    word_t key;
    if (as_word(key_obj, &key) < 0) {
        if (!PyErr_ExceptionMatches(PyExc_OverflowError)) return NULL;
        PyErr_Clear(); /* no key of this table */
        Py_RETURN_NONE;
    }
    lock_released(e->lock);
    const int64_t *found = map_get(&e->table, key);
    int64_t entry = found != NULL ? *found : 0;
    PyThread_release_lock(e->lock);
    if (found == NULL) Py_RETURN_NONE;
    return PyLong_FromLongLong(entry);
}

static PyObject *exact_clear(PyObject *self, PyObject *unused) {
    (void)unused;
    Exact *e = (Exact *)self;
    lock_released(e->lock);
    map_clear(&e->table);
    PyThread_release_lock(e->lock);
    Py_RETURN_NONE;
}

/* The table's entries copied out into malloc'd keys and values (NULL out of memory):
 * making Python objects may run code that changes the table. Their count. */
static size_t entries(const Exact *e, word_t **keys, int64_t **values) {
    size_t count = 0, room = e->table.count ? e->table.count : 1;
    *keys = malloc(room * sizeof(word_t));
    *values = malloc(room * sizeof(int64_t));
    for (size_t cursor = 0; *keys && *values && count < e->table.count &&
                            map_next(&e->table, &cursor, &(*keys)[count], &(*values)[count]);)
        count++;
    return count;
}

static PyObject *exact_items(PyObject *self, PyObject *unused) {
    (void)unused;
    Exact *e = (Exact *)self;
    word_t *keys;
    int64_t *values;
    lock_released(e->lock);
    size_t count = entries(e, &keys, &values);
    PyThread_release_lock(e->lock);
    PyObject *list = keys && values ? PyList_New((Py_ssize_t)count) : PyErr_NoMemory();
    for (size_t i = 0; list != NULL && i < count; i++) {
        PyObject *pair = Py_BuildValue("(NL)", from_word(keys[i]), (long long)values[i]);
        if (pair == NULL) Py_CLEAR(list);
        else PyList_SetItem(list, (Py_ssize_t)i, pair);
    }
    free(keys);
    free(values);
    return list;
}

static Py_ssize_t exact_length(PyObject *self) {
    return (Py_ssize_t)((Exact *)self)->table.count;
}

static PyGetSetDef exact_getset[] = {
    {"nodes", get_count, NULL, "Nodes searched so far.", COUNT_AT(Exact, nodes)},
    {"max_entries", get_count, set_count,
     "The table is emptied when it holds this many entries.", COUNT_AT(Exact, max_entries)},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMemberDef exact_members[] = {
    {"dynamic_empties", T_INT, offsetof(Exact, dynamic_empties), 0,
     "Nodes with more empty cells than this order their moves by line weights."},
    {NULL, 0, 0, 0, NULL},
};

static PyMethodDef exact_methods[] = {
    {"search", exact_search, METH_VARARGS,
     "search(me, opp, alpha, beta, limit, start): the fail-soft negamax."},
    {"get", exact_get, METH_O, "The table's packed entry of a key, or None."},
    {"clear", exact_clear, METH_NOARGS, "Empty the table."},
    {"items", exact_items, METH_NOARGS, "The table's (key, packed entry) pairs."},
    {NULL, NULL, 0, NULL},
};

const Kind exact_kind = {
    .name = "noughts.search._core.Exact", .size = sizeof(Exact),
    .doc = "The exact negamax with its table (normal play and misère), compiled.",
    .make = exact_new, .dealloc = exact_dealloc, .methods = exact_methods,
    .members = exact_members, .getset = exact_getset, .length = exact_length,
    .type = &ExactType};
