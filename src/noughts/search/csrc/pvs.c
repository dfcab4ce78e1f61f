/* The anytime search in C: the search board and the principal-variation search, a
 * faithful port of noughts/search/board.py and noughts/search/pvs.py (normal play and
 * misère). Every branch, move order, table rule and node count is the reference's;
 * read those modules for the why of each step. */
#include "core.h"

#include <stdlib.h>

#define MATE ((int64_t)1 << 50)
#define MATE_BOUND (MATE - 100000)
#define INF (MATE + 1)
#define KILLER_BONUS ((int64_t)1 << 40)
#define LMR_AFTER 4
#define CANONICAL_PLIES 1
#define MAX_TABLE 400000
#define EXACT 0
#define LOWER 1
#define UPPER 2
#define MAX_PLY (MAX_CELLS + 2) /* the killers' rows: a move's ply is at most the cells */
#define FORCED_PLY MAX_PLY      /* the frontier's forced replies: past every killer row
                                   (searched at depth 0, they read none; the reference's
                                   ply there, 99, reads none either) */

/* -- the transposition table (a dict of 64-bit keys, emptied at MAX_TABLE) ------------ */
typedef struct {
    uint64_t *keys;
    int64_t *scores;
    int32_t *depths;
    int8_t *flags, *moves;
    uint8_t *used;
    size_t capacity, count;
} Table;

/* The table lives in the C heap (malloc, not PyMem): the search fills it without the
 * GIL. On a memory error -1, with no Python error set (the caller sets it). */
static void table_free(Table *table) {
    free(table->keys);
    free(table->scores);
    free(table->depths);
    free(table->flags);
    free(table->moves);
    free(table->used);
    memset(table, 0, sizeof(*table));
}

static int table_alloc(Table *table, size_t capacity) {
    table->keys = malloc(capacity * sizeof(uint64_t));
    table->scores = malloc(capacity * sizeof(int64_t));
    table->depths = malloc(capacity * sizeof(int32_t));
    table->flags = malloc(capacity);
    table->moves = malloc(capacity);
    table->used = calloc(capacity, 1);
    table->capacity = capacity;
    table->count = 0;
    if (!table->keys || !table->scores || !table->depths || !table->flags || !table->moves ||
        !table->used) {
        table_free(table);
        return -1;
    }
    return 0;
}

static inline size_t table_slot(uint64_t key, size_t capacity) {
    uint64_t h = key * 0x9E3779B97F4A7C15ULL;
    return (size_t)(h >> 20) & (capacity - 1);
}

static ptrdiff_t table_find(const Table *table, uint64_t key) {
    size_t mask = table->capacity - 1;
    for (size_t slot = table_slot(key, table->capacity);; slot = (slot + 1) & mask) {
        if (!table->used[slot]) return -1;
        if (table->keys[slot] == key) return (ptrdiff_t)slot;
    }
}

static int table_store(Table *table, uint64_t key, int depth, int flag, int64_t score,
                       int move);

static int table_grow(Table *table) {
    Table bigger;
    if (table_alloc(&bigger, table->capacity * 2) < 0) return -1;
    for (size_t slot = 0; slot < table->capacity; slot++)
        if (table->used[slot])
            table_store(&bigger, table->keys[slot], table->depths[slot], table->flags[slot],
                        table->scores[slot], table->moves[slot]);
    table_free(table);
    *table = bigger;
    return 0;
}

static int table_store(Table *table, uint64_t key, int depth, int flag, int64_t score,
                       int move) {
    if (2 * (table->count + 1) > table->capacity && table_grow(table) < 0) return -1;
    size_t mask = table->capacity - 1;
    size_t slot = table_slot(key, table->capacity);
    while (table->used[slot] && table->keys[slot] != key) slot = (slot + 1) & mask;
    if (!table->used[slot]) {
        table->used[slot] = 1;
        table->keys[slot] = key;
        table->count++;
    }
    table->depths[slot] = depth;
    table->flags[slot] = (int8_t)flag;
    table->scores[slot] = score;
    table->moves[slot] = (int8_t)move;
    return 0;
}

static void table_clear(Table *table) {
    memset(table->used, 0, table->capacity);
    table->count = 0;
}

/* -- the search ------------------------------------------------------------------------ */
typedef struct {
    PyObject_HEAD
    Tables *tables;
    int k, cells, nlines, nsym;
    /* the board (noughts.search.board.SearchBoard) */
    bb_t bits[2], occupied, empty;
    int marks, stm;
    int64_t value[2][MAX_K + 2], tempo_value[2][MAX_K + 2], fork_value[2];
    int64_t contrib[2][MAX_K + 2][MAX_K + 2];
    uint8_t counts[2][MAX_LINES];
    bb_t threat_cells[2], pot_cells[2];
    uint8_t threat_count[2][MAX_CELLS], pot_count[2][MAX_CELLS];
    int forks[2];
    int64_t gain[2][MAX_CELLS];
    int64_t score, tempo;
    uint64_t hashes[MAX_SYMMETRIES];
    /* the search (noughts.search.pvs.AnytimeSearch) */
    int misere, root_marks;
    char misere_flag, restricted; /* misere as a bool; restricted: always false here */
    int64_t nodes, next_check;
    Poll poll;
    Table table;
    int64_t history[MAX_CELLS];
    int killers[MAX_PLY][2];
    int stop; /* 1: the limit ran out, 2: out of memory; unwind */
    int busy; /* in root or move_value, searching without the GIL */
} Search;

static PyTypeObject *SearchType = NULL;

/* -- the board ---------------------------------------------------------------------- */
static inline void add_threat(Search *s, int side, int cell) {
    if (++s->threat_count[side][cell] == 1) s->threat_cells[side] |= (bb_t)1 << cell;
}

static inline void remove_threat(Search *s, int side, int cell) {
    if (--s->threat_count[side][cell] == 0) s->threat_cells[side] &= ~((bb_t)1 << cell);
}

static inline void add_pot(Search *s, int side, int cell) {
    int count = ++s->pot_count[side][cell];
    if (count == 1) {
        s->pot_cells[side] |= (bb_t)1 << cell;
    } else if (count == 2) {
        s->forks[side]++;
        s->score += s->fork_value[side];
    }
}

static inline void remove_pot(Search *s, int side, int cell) {
    int count = --s->pot_count[side][cell];
    if (count == 0) {
        s->pot_cells[side] &= ~((bb_t)1 << cell);
    } else if (count == 1) {
        s->forks[side]--;
        s->score -= s->fork_value[side];
    }
}

static void build(Search *s) {
    const Tables *t = s->tables;
    int k = s->k;
    for (int side = 0; side < 2; side++)
        for (bb_t rest = s->bits[side]; rest; rest &= rest - 1) {
            int cell = lowest(rest);
            for (int sym = 0; sym < s->nsym; sym++) s->hashes[sym] ^= t->zobrist[side][cell][sym];
        }
    for (int i = 0; i < s->nlines; i++) {
        bb_t line = t->lines[i];
        int x = popcount(line & s->bits[0]), o = popcount(line & s->bits[1]);
        s->counts[0][i] = (uint8_t)x;
        s->counts[1][i] = (uint8_t)o;
        int64_t share_x = s->contrib[0][x][o], share_o = s->contrib[1][o][x];
        for (int j = 0; j < k; j++) {
            int cell = t->line_cells[i][j];
            s->gain[0][cell] += share_x;
            s->gain[1][cell] += share_o;
        }
        bb_t empty = line & ~s->occupied;
        for (int side = 0; side < 2; side++) {
            int mine = side == 0 ? x : o, theirs = side == 0 ? o : x;
            if (theirs) continue;
            if (mine) {
                s->score += s->value[side][mine];
                s->tempo += s->tempo_value[side][mine];
            }
            if (mine == k - 1) {
                for (bb_t rest = empty; rest; rest &= rest - 1) add_threat(s, side, lowest(rest));
            } else if (k >= 3 && mine == k - 2) {
                for (bb_t rest = empty; rest; rest &= rest - 1) add_pot(s, side, lowest(rest));
            }
        }
    }
}

static inline void threat(Search *s, int side, int cell, int on) {
    if (on) add_threat(s, side, cell);
    else remove_threat(s, side, cell);
}

static inline void pot(Search *s, int side, int cell, int on) {
    if (on) add_pot(s, side, cell);
    else remove_pot(s, side, cell);
}

/* side's mark on cell made (on: SearchBoard.play) or taken back (SearchBoard.undo): the
 * keys, and every line through cell with its counts, values, gains, threats and pots,
 * updated one way or the other alike. */
static inline __attribute__((always_inline)) void mark(Search *s, int side, int cell,
                                                        const int on) {
    const Tables *t = s->tables;
    const int other = 1 - side, k = s->k, sign = on ? 1 : -1;
    const bb_t bit = (bb_t)1 << cell, occupied = s->occupied | bit;
    const uint64_t *keys = t->zobrist[side][cell];
    for (int sym = 0; sym < s->nsym; sym++) s->hashes[sym] ^= keys[sym];
    uint8_t *mine = s->counts[side], *theirs = s->counts[other];
    const int64_t *my_value = s->value[side], *their_value = s->value[other];
    const int64_t *my_tempo = s->tempo_value[side], *their_tempo = s->tempo_value[other];
    int64_t (*my_contrib)[MAX_K + 2] = s->contrib[side];
    int64_t (*their_contrib)[MAX_K + 2] = s->contrib[other];
    int64_t *my_gain = s->gain[side], *their_gain = s->gain[other];
    int64_t delta = 0, tempo = s->tempo;
    for (int j = 0; j < t->through_count[cell]; j++) {
        int i = t->through[cell][j];
        int a = on ? mine[i] : mine[i] - 1, b = theirs[i]; /* a: mine without cell */
        mine[i] = (uint8_t)(on ? a + 1 : a);
        int64_t d_mine = sign * (my_contrib[a + 1][b] - my_contrib[a][b]);
        int64_t d_theirs = sign * (their_contrib[b][a + 1] - their_contrib[b][a]);
        if (d_mine || d_theirs) {
            for (int c = 0; c < k; c++) {
                int line_cell = t->line_cells[i][c];
                my_gain[line_cell] += d_mine;
                their_gain[line_cell] += d_theirs;
            }
        }
        bb_t line = t->lines[i];
        if (b == 0) {
            delta += sign * (my_value[a + 1] - my_value[a]);
            tempo += sign * (my_tempo[a + 1] - my_tempo[a]);
            if (a == k - 1) {
                threat(s, side, cell, !on);
            } else if (a == k - 2) {
                threat(s, side, highest(line & ~occupied), on);
                if (k >= 3)
                    for (bb_t rest = (line & ~occupied) | bit; rest; rest &= rest - 1)
                        pot(s, side, lowest(rest), !on);
            } else if (a == k - 3) {
                for (bb_t rest = line & ~occupied; rest; rest &= rest - 1)
                    pot(s, side, lowest(rest), on);
            }
        } else if (a == 0) {
            delta -= sign * their_value[b];
            tempo -= sign * their_tempo[b];
            if (b == k - 1) {
                threat(s, other, cell, !on);
            } else if (b == k - 2) {
                for (bb_t rest = (line & ~occupied) | bit; rest; rest &= rest - 1)
                    pot(s, other, lowest(rest), !on);
            }
        }
    }
    s->score += delta;
    s->tempo = tempo;
}

static void play(Search *s, int cell) {
    int side = s->stm;
    mark(s, side, cell, 1);
    s->bits[side] |= (bb_t)1 << cell;
    s->occupied |= (bb_t)1 << cell;
    s->empty ^= (bb_t)1 << cell;
    s->marks++;
    s->stm = 1 - side;
}

static void undo(Search *s, int cell) {
    int side = 1 - s->stm;
    mark(s, side, cell, 0);
    s->bits[side] ^= (bb_t)1 << cell;
    s->occupied ^= (bb_t)1 << cell;
    s->empty |= (bb_t)1 << cell;
    s->marks--;
    s->stm = side;
}

static inline int64_t evaluation(const Search *s) {
    return (s->stm == 0 ? s->score : -s->score) + s->tempo;
}

static inline int64_t waiting_evaluation(const Search *s) {
    return (s->stm == 0 ? s->score : -s->score) - s->tempo;
}

static inline uint64_t plain_key(const Search *s) { return s->hashes[0]; }

static inline uint64_t canonical_key(const Search *s, int *symmetry) {
    return least_key(s->hashes, s->nsym, symmetry);
}

/* -- the limit ------------------------------------------------------------------------- */
/* Poll the limit at the node being entered: 0 to go on, else the search stops (that
 * node neither searched nor counted). */
static int tick(Search *s) {
    int expired = poll_expired(&s->poll, s->nodes - 1);
    if (expired) {
        s->nodes -= 1;
        s->stop = STOP_LIMIT;
        return 1;
    }
    int64_t next = s->nodes + 64;
    if (s->poll.has_nodes && s->poll.node_limit + 1 < next) next = s->poll.node_limit + 1;
    s->next_check = next;
    return 0;
}

/* -- move ordering --------------------------------------------------------------------- */
/* Moves of cells (the candidates when 0) by value, then the higher cell first; gains
 * negated in misère (the quietest first). Returns the count. */
static int ordered_moves(Search *s, int first, int ply, bb_t cells, int quiet, int *out) {
    int64_t values[MAX_CELLS];
    int n = 0;
    const int64_t *gains = s->gain[s->stm];
    static const int no_killers[2] = {-1, -1};
    const int *killers = ply < MAX_PLY ? s->killers[ply] : no_killers;
    bb_t mask = cells ? cells : s->empty;
    for (; mask; mask &= mask - 1) {
        int cell = lowest(mask);
        int64_t value = (quiet ? -gains[cell] : gains[cell]) + s->history[cell];
        if (cell == killers[0] || cell == killers[1]) value += KILLER_BONUS;
        if (cell == first) value += 2 * KILLER_BONUS;
        /* descending value, then descending cell (cells come ascending) */
        n = insert_ranked(values, out, n, value, cell, 1);
    }
    return n;
}

static int64_t negamax(Search *s, int depth, int64_t alpha, int64_t beta, int ply);

static int64_t frontier(Search *s, int64_t alpha, int64_t beta) {
    bb_t pot = s->pot_cells[s->stm];
    int64_t stand = waiting_evaluation(s);
    const int64_t *gains = s->gain[s->stm];
    int64_t top = -INF;
    for (bb_t rest = s->empty & ~pot; rest; rest &= rest - 1) {
        int cell = lowest(rest);
        if (gains[cell] > top) top = gains[cell];
    }
    int64_t best = top > -INF ? stand + top : -INF;
    if (best >= beta) return best;
    if (best > alpha) alpha = best;
    for (bb_t rest = pot; rest; rest &= rest - 1) {
        int cell = lowest(rest);
        play(s, cell);
        int64_t score = -negamax(s, 0, -beta, -alpha, FORCED_PLY);
        undo(s, cell);
        if (s->stop) return 0;
        if (score > best) {
            best = score;
            if (score > alpha) {
                alpha = score;
                if (alpha >= beta) break;
            }
        }
    }
    return best;
}

static int64_t negamax(Search *s, int depth, int64_t alpha, int64_t beta, int ply) {
    s->nodes++;
    if (s->nodes >= s->next_check && tick(s)) return 0;
    int side = s->stm, marks = s->marks;
    bb_t safe = 0;
    uint64_t key;
    int symmetry = 0;
    if (s->misere) {
        if (!s->empty) return 0;
        safe = s->empty & ~s->threat_cells[side];
        if (!safe) return marks + 1 - MATE;
        int64_t top = MATE - marks - 2;
        if (beta > top) {
            beta = top;
            if (alpha >= beta) return top;
        }
        int64_t bottom = marks + 3 - MATE;
        if (alpha < bottom) {
            alpha = bottom;
            if (alpha >= beta) return bottom;
        }
        if (depth <= 0) return -evaluation(s);
        key = plain_key(s);
    } else {
        if (s->threat_cells[side]) return MATE - marks - 1;
        if (!s->empty) return 0;
        bb_t theirs = s->threat_cells[1 - side];
        if (theirs) {
            if (theirs & (theirs - 1)) return marks + 2 - MATE;
            int block = highest(theirs);
            play(s, block);
            int64_t score = -negamax(s, depth, -beta, -alpha, ply + 1);
            undo(s, block);
            return s->stop ? 0 : score;
        }
        if (s->forks[side]) return MATE - marks - 3;
        int64_t top = MATE - marks - 5;
        if (beta > top) {
            beta = top;
            if (alpha >= beta) return top;
        }
        if (depth <= 0) return evaluation(s);
        if (depth == 1 && !s->forks[1 - side]) {
            s->nodes += popcount(s->empty);
            return frontier(s, alpha, beta);
        }
        key = ply <= CANONICAL_PLIES ? canonical_key(s, &symmetry) : plain_key(s);
    }
    Table *table = &s->table;
    ptrdiff_t slot = table_find(table, key);
    int first = -1;
    if (slot >= 0) {
        int stored_depth = table->depths[slot], flag = table->flags[slot];
        int64_t stored = table->scores[slot];
        if (stored_depth >= depth || stored >= MATE_BOUND || stored <= -MATE_BOUND) {
            if (flag == EXACT) return stored;
            if (flag == LOWER && stored >= beta) return stored;
            if (flag == UPPER && stored <= alpha) return stored;
        }
        int move = table->moves[slot];
        if (move >= 0) {
            first = s->tables->inverse[symmetry][move];
            if (!((s->empty >> first) & 1)) first = -1;
        }
    }
    int moves[MAX_CELLS];
    int count = s->misere ? ordered_moves(s, first, ply, safe, 1, moves)
                          : ordered_moves(s, first, ply, 0, 0, moves);
    int64_t original_alpha = alpha, best = -INF;
    int best_move = -1;
    bb_t pot = s->pot_cells[side];
    for (int index = 0; index < count; index++) {
        int cell = moves[index];
        int reduce = depth >= 3 && index >= LMR_AFTER && !s->misere && !((pot >> cell) & 1);
        int64_t score;
        play(s, cell);
        if (index == 0) {
            score = -negamax(s, depth - 1, -beta, -alpha, ply + 1);
        } else {
            score = alpha + 1;
            if (reduce) score = -negamax(s, depth - 2, -alpha - 1, -alpha, ply + 1);
            if (!s->stop && score > alpha)
                score = -negamax(s, depth - 1, -alpha - 1, -alpha, ply + 1);
            if (!s->stop && alpha < score && score < beta)
                score = -negamax(s, depth - 1, -beta, -alpha, ply + 1);
        }
        undo(s, cell);
        if (s->stop) return 0;
        if (score > best) {
            best = score;
            best_move = cell;
            if (score > alpha) {
                alpha = score;
                if (alpha >= beta) {
                    int *killers = s->killers[ply < MAX_PLY ? ply : MAX_PLY - 1];
                    if (ply < MAX_PLY && killers[0] != cell) {
                        killers[1] = killers[0];
                        killers[0] = cell;
                    }
                    s->history[cell] += (int64_t)depth * depth;
                    break;
                }
            }
        }
    }
    if (table->count >= MAX_TABLE) table_clear(table);
    int flag = best <= original_alpha ? UPPER : best >= beta ? LOWER : EXACT;
    int stored_move = best_move >= 0 ? s->tables->perms[symmetry][best_move] : -1;
    if (table_store(table, key, depth, flag, best, stored_move) < 0) {
        s->stop = STOP_MEMORY;
        return 0;
    }
    return best;
}

/* -- Python -------------------------------------------------------------------------- */
/* A line value: an int of at most VALUE_EDGE either way (the board's sums of them, over
 * at most 256 lines, then stay far inside 64 bits). */
#define VALUE_EDGE ((int64_t)1 << 52)

/* The board's LineValues as one flat sequence of line values, in order: value (X's k + 1,
 * O's k + 1), fork_value (2), tempo_value (2 x (k + 1)), to_move (1), contrib (2 x (k + 2)
 * x (k + 2)); copied into the search (no Python). */
#define VALUES(k) (4 * ((k) + 1) + 3 + 2 * ((k) + 2) * ((k) + 2))
static void take_values(Search *s, const int64_t *flat, int k) {
    for (int side = 0; side < 2; side++, flat += k + 1)
        memcpy(s->value[side], flat, (size_t)(k + 1) * 8);
    s->fork_value[0] = *flat++;
    s->fork_value[1] = *flat++;
    for (int side = 0; side < 2; side++, flat += k + 1)
        memcpy(s->tempo_value[side], flat, (size_t)(k + 1) * 8);
    s->tempo = *flat++;
    for (int side = 0; side < 2; side++)
        for (int a = 0; a < k + 2; a++, flat += k + 2)
            memcpy(s->contrib[side][a], flat, (size_t)(k + 2) * 8);
}

/* The board's position and its values' sums (SearchBoard's setup): no Python. */
static void setup(Search *s, Tables *tables, bb_t x, bb_t o, int to_move, int misere) {
    s->tables = tables;
    s->k = tables->k;
    s->cells = tables->cells;
    s->nlines = tables->nlines;
    s->nsym = tables->nsym;
    for (int i = 0; i < MAX_PLY; i++) s->killers[i][0] = s->killers[i][1] = -1;
    s->bits[0] = x;
    s->bits[1] = o;
    s->occupied = x | o;
    s->empty = tables->full & ~s->occupied;
    s->marks = s->root_marks = popcount(s->occupied);
    s->stm = to_move;
    s->misere = s->misere_flag = (char)misere;
    build(s);
}

/* Search(tables, x, o, to_move, values, misere): values is the board's LineValues, flat
 * (take_values). */
static PyObject *search_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    PyObject *tables, *x_obj, *o_obj, *values;
    int to_move, misere;
    bb_t x, o;
    int64_t flat[VALUES(MAX_K)];
    if (!parse_new(args, kwargs, "Search", "O!OOiOp", TablesType, &tables, &x_obj, &o_obj,
                   &to_move, &values, &misere) ||
        read_position(x_obj, o_obj, &to_move, ((Tables *)tables)->full, &x, &o) < 0)
        return NULL;
    int k = ((Tables *)tables)->k;
    Py_ssize_t count = read_ints(values, flat, VALUES(MAX_K), -VALUE_EDGE, VALUE_EDGE + 1,
                                 "values: a value past 2**52");
    if (count >= 0 && count != VALUES(k))
        return PyErr_Format(PyExc_ValueError, "values: %d line values, not %zd", VALUES(k),
                            count);
    Search *s = count < 0 ? NULL : object_new(type);
    if (s == NULL) return NULL;
    take_values(s, flat, k);
    Py_INCREF(tables);
    setup(s, (Tables *)tables, x, o, to_move, misere);
    if (table_alloc(&s->table, 1 << 16) < 0) PyErr_NoMemory();
    return made(s);
}

static void search_dealloc(PyObject *self) {
    Search *s = (Search *)self;
    table_free(&s->table);
    poll_clear(&s->poll);
    Py_XDECREF((PyObject *)s->tables);
    object_free(self);
}

/* root and move_value search without the GIL: meanwhile another thread may run Python,
 * cancel the limit, read the node count; a call that would touch the board or the table
 * gets a RuntimeError instead (idle, claim). */
#define WHAT "search"

static PyObject *search_threat_cells(PyObject *self, PyObject *arg) {
    if (idle(&((Search *)self)->busy, WHAT) < 0) return NULL;
    long side = PyLong_AsLong(arg);
    if (side == -1 && PyErr_Occurred()) return NULL;
    if (side != 0 && side != 1) return PyErr_Format(PyExc_ValueError, "side is 0 (X) or 1 (O)");
    return from_bitboard(((Search *)self)->threat_cells[side]);
}

static PyObject *search_empty_count(PyObject *self, PyObject *unused) {
    (void)unused;
    if (idle(&((Search *)self)->busy, WHAT) < 0) return NULL;
    return PyLong_FromLong(popcount(((Search *)self)->empty));
}

static PyObject *search_ordered_moves(PyObject *self, PyObject *args) {
    Search *s = (Search *)self;
    if (idle(&s->busy, WHAT) < 0) return NULL;
    int first, ply;
    if (!PyArg_ParseTuple(args, "ii", &first, &ply)) return NULL;
    if (ply < 0 || ply >= MAX_PLY) return PyErr_Format(PyExc_ValueError, "ply out of range");
    int moves[MAX_CELLS];
    int count = ordered_moves(s, first, ply, 0, 0, moves);
    return cells_list(moves, count);
}

static PyObject *search_safe_moves(PyObject *self, PyObject *unused) {
    (void)unused;
    Search *s = (Search *)self;
    if (idle(&s->busy, WHAT) < 0) return NULL;
    int moves[MAX_CELLS];
    bb_t safe = s->empty & ~s->threat_cells[s->stm];
    int count = safe ? ordered_moves(s, -1, 0, safe, 1, moves) : 0;
    return cells_list(moves, count);
}

/* A search's depth: 0 to MAX_PLY (deeper than the board's cells searches no more); 0, or
 * -1 with a ValueError. */
static int check_depth(int depth) {
    if (depth < 0 || depth > MAX_PLY) {
        PyErr_Format(PyExc_ValueError, "depth %d: 0 to %d", depth, MAX_PLY);
        return -1;
    }
    return 0;
}

/* The cells of a Python list of moves (empty cells); their count, or -1 on error. */
static int move_cells(Search *s, PyObject *moves, int *out) {
    int64_t cells[MAX_CELLS];
    Py_ssize_t count = read_ints(moves, cells, MAX_CELLS, 0, s->cells, "moves: 1 to 64 cells");
    if (count == 0) PyErr_SetString(PyExc_ValueError, "moves: 1 to 64 cells");
    for (Py_ssize_t i = 0; i < count && !PyErr_Occurred(); i++) {
        if (!((s->empty >> cells[i]) & 1))
            PyErr_Format(PyExc_ValueError, "move %d is not an empty cell", (int)cells[i]);
        out[i] = (int)cells[i];
    }
    return PyErr_Occurred() ? -1 : (int)count;
}

/* A searching call's start: the search claimed, its limit set (polled from the first
 * node), its depth checked; 0, or -1 with an error (and the search not claimed). */
static int start(Search *s, int depth, PyObject *limit) {
    if (check_depth(depth) < 0 || claim(&s->busy, WHAT) < 0) return -1;
    if (poll_set(&s->poll, limit) < 0) {
        release(&s->busy);
        return -1;
    }
    s->next_check = s->nodes + 1;
    return 0;
}

/* AnytimeSearch.root: the moves searched to depth, into scores; the best score, and the
 * best move into *best_move (no Python: it runs without the GIL). */
static int64_t root_search(Search *s, int depth, const int *moves, int count,
                           int64_t *scores, int *best_move) {
    int64_t alpha = -INF, beta = INF, best = -INF;
    *best_move = moves[0];
    for (int index = 0; index < count; index++) {
        int cell = moves[index];
        int64_t score;
        play(s, cell);
        if (index == 0) {
            score = -negamax(s, depth - 1, -beta, -alpha, 1);
        } else {
            score = -negamax(s, depth - 1, -alpha - 1, -alpha, 1);
            if (!s->stop && score > alpha) score = -negamax(s, depth - 1, -beta, -alpha, 1);
        }
        undo(s, cell);
        if (s->stop) break;
        scores[index] = score;
        if (score > best) {
            best = score;
            *best_move = cell;
            if (score > alpha) alpha = score;
        }
    }
    return best;
}

static PyObject *search_root(PyObject *self, PyObject *args) {
    Search *s = (Search *)self;
    int depth, moves[MAX_CELLS], count, best_move;
    PyObject *move_list, *limit;
    int64_t best, scores[MAX_CELLS];
    if (!PyArg_ParseTuple(args, "iOO", &depth, &move_list, &limit) || check_depth(depth) < 0 ||
        (count = move_cells(s, move_list, moves)) < 0 || start(s, depth, limit) < 0)
        return NULL;
    Py_BEGIN_ALLOW_THREADS
    best = root_search(s, depth, moves, count, scores, &best_move);
    Py_END_ALLOW_THREADS
    release(&s->busy);
    if (s->stop) return stopped(&s->stop);
    PyObject *by_move = PyDict_New();
    for (int index = 0; by_move != NULL && index < count; index++) {
        PyObject *cell = PyLong_FromLong(moves[index]);
        PyObject *score = PyLong_FromLongLong(scores[index]);
        if (cell == NULL || score == NULL || PyDict_SetItem(by_move, cell, score) < 0)
            Py_CLEAR(by_move);
        Py_XDECREF(cell);
        Py_XDECREF(score);
    }
    return by_move == NULL ? NULL : Py_BuildValue("LiN", (long long)best, best_move, by_move);
}

static PyObject *search_move_value(PyObject *self, PyObject *args) {
    Search *s = (Search *)self;
    int cell, depth;
    PyObject *limit;
    int64_t value;
    if (!PyArg_ParseTuple(args, "iiO", &cell, &depth, &limit)) return NULL;
    if (cell < 0 || cell >= s->cells || !((s->empty >> cell) & 1))
        return PyErr_Format(PyExc_ValueError, "move %d is not an empty cell", cell);
    if (start(s, depth, limit) < 0) return NULL;
    Py_BEGIN_ALLOW_THREADS
    play(s, cell);
    if (depth == 0)
        value = s->misere ? evaluation(s) : -evaluation(s);
    else
        value = -negamax(s, depth - 1, -INF, INF, 1);
    undo(s, cell);
    Py_END_ALLOW_THREADS
    release(&s->busy);
    if (s->stop) return stopped(&s->stop);
    return PyLong_FromLongLong(value);
}

/* AnytimeSearch.principal_variation: the table's line from the root, first first, of at
 * most length moves, into line; its length. */
static int variation(Search *s, int first, int length, int *line) {
    int played[MAX_CELLS + 1];
    int count = 0, made = 0;
    line[count++] = first;
    play(s, first);
    played[made++] = first;
    while (count < length && s->empty) {
        if (!s->misere) {
            if (s->threat_cells[1 - s->stm]) break;
            bb_t mine = s->threat_cells[s->stm];
            if (mine) {
                line[count++] = lowest(mine);
                break;
            }
        }
        int symmetry = 0;
        uint64_t key = plain_key(s);
        ptrdiff_t slot = table_find(&s->table, key);
        if (slot < 0 && !s->misere) {
            key = canonical_key(s, &symmetry);
            slot = table_find(&s->table, key);
        }
        if (slot < 0 || s->table.moves[slot] < 0) break;
        int cell = s->tables->inverse[symmetry][(int)s->table.moves[slot]];
        if (!((s->empty >> cell) & 1)) break;
        line[count++] = cell;
        play(s, cell);
        played[made++] = cell;
    }
    while (made) undo(s, played[--made]);
    return count;
}

static PyObject *search_principal_variation(PyObject *self, PyObject *args) {
    Search *s = (Search *)self;
    int first, length, line[MAX_CELLS + 1];
    if (idle(&s->busy, WHAT) < 0 || !PyArg_ParseTuple(args, "ii", &first, &length)) return NULL;
    if (first < 0 || first >= s->cells || !((s->empty >> first) & 1))
        return PyErr_Format(PyExc_ValueError, "move %d is not an empty cell", first);
    PyObject *cells = cells_list(line, variation(s, first, length, line));
    PyObject *result = cells == NULL ? NULL : PyList_AsTuple(cells);
    Py_XDECREF(cells);
    return result;
}

static PyGetSetDef search_getset[] = {
    {"nodes", get_count, set_count, "Nodes searched so far.", COUNT_AT(Search, nodes)},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMemberDef search_members[] = {
    {"root_marks", T_INT, offsetof(Search, root_marks), READONLY, "Marks at the root."},
    {"restricted", T_BOOL, offsetof(Search, restricted), READONLY,
     "False: every empty cell is a candidate."},
    {"misere", T_BOOL, offsetof(Search, misere_flag), READONLY, "True in a misère game."},
    {"table_entries", T_PYSSIZET, offsetof(Search, table.count), READONLY,
     "Entries in the table."},
    {NULL, 0, 0, 0, NULL},
};

static PyMethodDef search_methods[] = {
    {"threat_cells", search_threat_cells, METH_O, "The cells completing a line of a side."},
    {"empty_count", search_empty_count, METH_NOARGS, "How many cells are empty."},
    {"ordered_moves", search_ordered_moves, METH_VARARGS, "ordered_moves(first, ply)."},
    {"safe_moves", search_safe_moves, METH_NOARGS, "Misère: the safe cells, quietest first."},
    {"root", search_root, METH_VARARGS,
     "root(depth, moves, limit): one iteration at the root within limit."},
    {"move_value", search_move_value, METH_VARARGS,
     "move_value(cell, depth, limit): a move's value within limit."},
    {"principal_variation", search_principal_variation, METH_VARARGS,
     "principal_variation(first, length)."},
    {NULL, NULL, 0, NULL},
};

const Kind search_kind = {
    .name = "noughts.search._core.Search", .size = sizeof(Search),
    .doc = "The anytime search (board and principal-variation search), compiled.",
    .make = search_new, .dealloc = search_dealloc, .methods = search_methods,
    .members = search_members, .getset = search_getset,
    .type = &SearchType};
