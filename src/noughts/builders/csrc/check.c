/* The strategy checker in C: a port of noughts/builders/strategy_check.py (the walk of
 * verify_strategy, the one-step checks of check_entries and the plain threat checker
 * threat_win), giving the same report: the same positions in the same order, the same
 * counts, the same failures. It shares the core's plumbing (the board's tables, maps,
 * conversions) and none of its searches: the checker stays independent of the
 * proof-number and threat searches that built what it checks. Read the reference for
 * the why of each step.
 *
 * A position is two bitboards: the marks of the side the strategy plays (me, always to
 * move) and the other side's (them). The strategy is its file's records, read in place. */
#include "core.h"

#include <stdlib.h>

#define RECORD_SIZE 23 /* x, o (64-bit little-endian), move, status, plies, effort */
#define PROVEN 1
#define MOST_THREATS 62
#define POLL_EVERY 1024 /* positions between looks at the signals (Ctrl-C) */

/* The kinds of failure, numbered as the reference's messages (strategy_check._FAILURES). */
enum { NOT_STORED, ILLEGAL, DRAWS, ENDS, NOT_EVERY_REPLY };

typedef struct {
    int move, proven; /* the move in the position's own orientation */
} Entry;

typedef struct {
    const Tables *tables;
    const unsigned char *records;
    int64_t nrecords;
    int x_moves; /* the strategy's side is X */
    int depth;   /* the threat checker's most single threats */
    bb_t (*images)[8][256]; /* images[s][i][v]: the image under s of byte i holding v */
    Map seen;    /* canonical (x << 64 | o) -> 1 won, 0 not (or not yet known) */
    Map failed;  /* the threat checker's (mine << 64 | theirs) not won -> within how many */
    bb_t *twos;  /* each level of a chain: the attacker's lines one short of a threat */
    bb_t hint;   /* the cells of the last chain found: tried first in the next one */
    int64_t checked, threat_leaves, open_entries, unsolved;
    int64_t by_plies[MAX_CELLS + 1][2];
    int ply_order[MAX_CELLS + 1], nplies; /* plies in the order the reference meets them */
    PyObject *failures; /* [(x, o, kind, move, reply), ...] */
    PyObject *progress; /* called with the report so far every 100 checked, or NULL */
    unsigned polls;
} Check;

static inline bb_t bit_of(int cell) { return (bb_t)1 << cell; }

/* -- canonical keys (noughts.symmetries.Symmetries.canonical) ------------------------------ */
static int images_init(Check *c) {
    const Tables *t = c->tables;
    c->images = calloc((size_t)t->nsym, sizeof(*c->images));
    if (c->images == NULL) return -1; /* (no Python error set: the caller raises) */
    for (int s = 0; s < t->nsym; s++)
        for (int i = 0; i < 8 && 8 * i < t->cells; i++)
            for (int v = 1; v < 256; v++) {
                int cell = 8 * i + lowest((bb_t)v);
                bb_t image = cell < t->cells ? bit_of(t->perms[s][cell]) : 0;
                c->images[s][i][v] = c->images[s][i][v & (v - 1)] | image;
            }
    return 0;
}

static inline bb_t image(const Check *c, int s, bb_t b) {
    bb_t result = 0;
    for (int i = 0; b; i++, b >>= 8) result |= c->images[s][i][b & 255];
    return result;
}

/* Whether the image (x, o) comes before (than_x, than_o) as the word x | o << cells
 * orders them. */
static inline int before(bb_t x, bb_t o, bb_t than_x, bb_t than_o) {
    return o < than_o || (o == than_o && x < than_x);
}

/* The images of a position's X and O marks under every symmetry (the tables hold at
 * least one: the identity). */
static void images_of(const Check *c, bb_t x, bb_t o, bb_t *xs, bb_t *os) {
    int s = 0;
    do {
        xs[s] = image(c, s, x);
        os[s] = image(c, s, o);
    } while (++s < c->tables->nsym);
}

/* The key of a position of the walk (me to move), as Strategy.key gives it: the least
 * image and the first symmetry giving it (Symmetries.canonical). */
static void key_of(const Check *c, bb_t me, bb_t them, bb_t *key_x, bb_t *key_o, int *symmetry) {
    bb_t x = c->x_moves ? me : them, o = c->x_moves ? them : me;
    bb_t best_x = image(c, 0, x), best_o = image(c, 0, o);
    int best = 0;
    for (int s = 1; s < c->tables->nsym; s++) {
        bb_t image_x = image(c, s, x), image_o = image(c, s, o);
        if (before(image_x, image_o, best_x, best_o)) {
            best_x = image_x;
            best_o = image_o;
            best = s;
        }
    }
    *key_x = best_x;
    *key_o = best_o;
    *symmetry = best;
}

/* key_of for the position after the opponent's reply, from the images of the position
 * before it (xs, os: what all the replies share; Symmetries.child_canonical). */
static void reply_key(const Check *c, const bb_t *xs, const bb_t *os, int reply, bb_t *key_x,
                      bb_t *key_o, int *symmetry) {
    const Tables *t = c->tables;
    bb_t best_x = 0, best_o = 0;
    int best = -1;
    for (int s = 0; s < t->nsym; s++) {
        bb_t mark = bit_of(t->perms[s][reply]); /* the reply is the other side's */
        bb_t image_x = c->x_moves ? xs[s] : xs[s] | mark;
        bb_t image_o = c->x_moves ? os[s] | mark : os[s];
        if (best < 0 || before(image_x, image_o, best_x, best_o)) {
            best_x = image_x;
            best_o = image_o;
            best = s;
        }
    }
    *key_x = best_x;
    *key_o = best_o;
    *symmetry = best;
}

/* -- the strategy's records (Strategy._get_packed and found_at) ---------------------------- */
static inline bb_t read64(const unsigned char *bytes) {
    bb_t value = 0;
    for (int i = 7; i >= 0; i--) value = value << 8 | bytes[i];
    return value;
}

/* The entry stored under the key (the same binary search as the reference's), its move
 * mapped back by the symmetry (a move off the board, from a damaged file, stays as
 * stored: it is illegal); 0 if none. */
static int lookup(const Check *c, bb_t x, bb_t o, int symmetry, Entry *entry) {
    int64_t low = 0, high = c->nrecords;
    while (low < high) {
        int64_t middle = (low + high) / 2;
        const unsigned char *record = c->records + middle * RECORD_SIZE;
        bb_t stored_x = read64(record), stored_o = read64(record + 8);
        if (stored_x == x && stored_o == o) {
            int move = record[16];
            entry->move = move < c->tables->cells ? c->tables->inverse[symmetry][move] : move;
            entry->proven = record[17] == PROVEN;
            return 1;
        }
        if (stored_x < x || (stored_x == x && stored_o < o))
            low = middle + 1;
        else
            high = middle;
    }
    return 0;
}

/* -- the plain threat checker (threat_win) --------------------------------------------------- */
/* _chain: the attacker's cells of a chain (0 for none, and on a memory error, with
 * c->failed's error set: see threat_chain). */
static bb_t chain(Check *c, bb_t mine, bb_t theirs, const bb_t *twos, int ntwos, bb_t blocks,
                  int depth, int level, int *error) {
    if (blocks & (blocks - 1)) return 0; /* the defender completes a line first */
    word_t key = (word_t)mine << 64 | theirs;
    const int64_t *failed = map_get(&c->failed, key);
    /* (the reference remembers each depth apart; fewer threats win no more) */
    if (failed != NULL && *failed >= depth) return 0;
    /* each cell a threat can be made on, and the cells its new threats would complete */
    bb_t moves = 0, partner[MAX_CELLS];
    for (int i = 0; i < ntwos; i++) {
        bb_t cells = twos[i] & ~mine;
        if (blocks && !(cells & blocks)) continue; /* the attacker must block */
        bb_t low = cells & -cells, high = cells ^ low;
        int at_low = lowest(low), at_high = lowest(high);
        if (!(moves & low)) partner[at_low] = 0;
        if (!(moves & high)) partner[at_high] = 0;
        partner[at_low] |= high;
        partner[at_high] |= low;
        moves |= cells;
    }
    if (blocks) moves &= blocks;
    for (bb_t rest = moves; rest; rest &= rest - 1) {
        bb_t made = partner[lowest(rest)];
        if (made & (made - 1)) return rest & -rest; /* a double threat ends the chain */
    }
    if (depth) {
        const Tables *t = c->tables;
        int k = t->k;
        bb_t *kept = c->twos + (size_t)(level + 1) * t->nlines;
        bb_t hinted = moves & c->hint;
        for (int pass = 0; pass < 2; pass++) /* the hint's cells first, then the rest */
            for (bb_t rest = pass ? moves & ~hinted : hinted; rest; rest &= rest - 1) {
                int cell = lowest(rest);
                bb_t move = bit_of(cell), reply = partner[cell];
                bb_t after = mine | move, replied = theirs | reply;
                /* the defender's lines one short now: through the reply only */
                int at = lowest(reply);
                bb_t threats = 0;
                for (int j = 0; j < t->through_count[at]; j++) {
                    bb_t line = t->lines[t->through[at][j]];
                    if (!(line & after) && popcount(line & replied) == k - 1)
                        threats |= line & ~replied;
                }
                if (threats & (threats - 1)) continue;
                /* the attacker's lines one short of a threat: those the two moves left
                 * alone, and those the move brought there */
                bb_t gone = move | reply;
                int nkept = 0;
                for (int i = 0; i < ntwos; i++)
                    if (!(twos[i] & gone)) kept[nkept++] = twos[i];
                for (int j = 0; j < t->through_count[cell]; j++) {
                    bb_t line = t->lines[t->through[cell][j]];
                    if (!(line & replied) && popcount(line & after) == k - 2) kept[nkept++] = line;
                }
                bb_t found = chain(c, after, replied, kept, nkept, threats, depth - 1, level + 1,
                                   error);
                if (found) return found | move;
                if (*error) return 0;
            }
    }
    if (map_put(&c->failed, key, depth) < 0) *error = 1; /* (threat_chain raises) */
    return 0;
}

/* threat_win: the cells of a chain for the side to move (0 for none); -1 on an error. */
static int threat_chain(Check *c, bb_t mine, bb_t theirs, bb_t *cells) {
    const Tables *t = c->tables;
    int k = t->k, ntwos = 0;
    bb_t blocks = 0; /* the cells that would complete one of the defender's lines */
    *cells = 0;
    for (int i = 0; i < t->nlines; i++) {
        bb_t line = t->lines[i];
        if (line & theirs) {
            if (!(line & mine) && popcount(line & theirs) == k - 1) blocks |= line & ~theirs;
            continue;
        }
        int marks = popcount(line & mine);
        if (marks == k - 1) {
            *cells = line & ~mine; /* the side to move completes a line now */
            return 0;
        }
        if (marks == k - 2) c->twos[ntwos++] = line;
    }
    /* each call starts afresh, as the reference's; a table grown big is let go */
    if (c->failed.now.capacity > 4096) {
        map_free(&c->failed);
        if (map_init(&c->failed, 64) < 0) return -1; /* (out of memory: the caller raises) */
    } else {
        map_clear(&c->failed);
    }
    int error = 0;
    *cells = chain(c, mine, theirs, c->twos, ntwos, blocks, c->depth, 0, &error);
    return error ? -1 : 0;
}

/* -- the walk (_Walk) ------------------------------------------------------------------------ */
static int fail(Check *c, int kind, bb_t me, bb_t them, int move, int reply) {
    bb_t x = c->x_moves ? me : them, o = c->x_moves ? them : me;
    PyObject *failure = Py_BuildValue("(KKiii)", (unsigned long long)x, (unsigned long long)o,
                                      kind, move, reply);
    if (failure == NULL) return -1;
    int result = PyList_Append(c->failures, failure);
    Py_DECREF(failure);
    return result;
}

/* Whether marks complete a line through cell. */
static int completes(const Tables *t, bb_t marks, int cell) {
    for (int j = 0; j < t->through_count[cell]; j++) {
        bb_t line = t->lines[t->through[cell][j]];
        if ((line & marks) == line) return 1;
    }
    return 0;
}

/* The report so far: (checked, threat_leaves, open_entries, unsolved, failures (a copy),
 * by_plies {ply: [met, won]}). */
static PyObject *report(const Check *c) {
    PyObject *by_plies = PyDict_New();
    if (by_plies == NULL) return NULL;
    for (int i = 0; i < c->nplies; i++) {
        int ply = c->ply_order[i];
        PyObject *key = PyLong_FromLong(ply);
        PyObject *counts = Py_BuildValue("[LL]", (long long)c->by_plies[ply][0],
                                         (long long)c->by_plies[ply][1]);
        int result = key == NULL || counts == NULL ? -1 : PyDict_SetItem(by_plies, key, counts);
        Py_XDECREF(key);
        Py_XDECREF(counts);
        if (result < 0) {
            Py_DECREF(by_plies);
            return NULL;
        }
    }
    PyObject *failures = PySequence_List(c->failures);
    if (failures == NULL) {
        Py_DECREF(by_plies);
        return NULL;
    }
    return Py_BuildValue("(LLLLNN)", (long long)c->checked, (long long)c->threat_leaves,
                         (long long)c->open_entries, (long long)c->unsolved, failures, by_plies);
}

static int walk(Check *c, bb_t me, bb_t them, int claimed, bb_t key_x, bb_t key_o, int symmetry,
                bb_t legal);
static int one_step(Check *c, bb_t me, bb_t them, int claimed, bb_t key_x, bb_t key_o,
                    int symmetry);

/* _Walk.check: 1 if the position is won, 0 if not, -1 on an error. Each reply goes to
 * walk, or to one_step when one_step is set. */
static int check(Check *c, bb_t me, bb_t them, const Entry *found, int claimed, int step,
                 bb_t legal) {
    const Tables *t = c->tables;
    if (found == NULL) {
        bb_t cells;
        if (threat_chain(c, me, them, &cells) < 0) return -1;
        if (cells) {
            c->hint = cells;
            c->threat_leaves++;
            return 1;
        }
        c->unsolved++;
        if (claimed && fail(c, NOT_STORED, me, them, -1, -1) < 0) return -1;
        return 0;
    }
    c->checked++;
    if (!found->proven) c->open_entries++;
    int move = found->move;
    if (move >= t->cells || !(legal >> move & 1)) return fail(c, ILLEGAL, me, them, move, -1);
    bb_t after = me | bit_of(move);
    if (completes(t, after, move)) return 1;
    bb_t empty = t->full & ~(after | them);
    if (!empty) return fail(c, DRAWS, me, them, move, -1);
    int claim = claimed || found->proven, won = 1, nreplies = 0;
    bb_t replies_x[MAX_CELLS], replies_o[MAX_CELLS]; /* the replies' keys: one per class */
    bb_t xs[MAX_SYMMETRIES], os[MAX_SYMMETRIES];
    images_of(c, c->x_moves ? after : them, c->x_moves ? them : after, xs, os);
    for (bb_t rest = empty; rest; rest &= rest - 1) {
        int reply = lowest(rest);
        bb_t replied = them | bit_of(reply);
        if (bit_of(reply) == empty || completes(t, replied, reply)) { /* it ends the game */
            if (claim && fail(c, ENDS, me, them, move, reply) < 0) return -1;
            won = 0;
            continue;
        }
        bb_t key_x, key_o;
        int symmetry, known = 0;
        reply_key(c, xs, os, reply, &key_x, &key_o, &symmetry);
        for (int i = 0; i < nreplies && !known; i++)
            known = replies_x[i] == key_x && replies_o[i] == key_o;
        if (known) continue;
        replies_x[nreplies] = key_x;
        replies_o[nreplies++] = key_o;
        int result = step ? one_step(c, after, replied, claim, key_x, key_o, symmetry)
                          : walk(c, after, replied, claim, key_x, key_o, symmetry,
                                 empty & ~bit_of(reply));
        if (result < 0) return -1;
        if (!result) won = 0;
    }
    if (found->proven && !won && fail(c, NOT_EVERY_REPLY, me, them, -1, -1) < 0) return -1;
    return won;
}

/* _Walk.walk: check the position once; 1 if it is proven won, 0 if not, -1 on an error. */
static int walk(Check *c, bb_t me, bb_t them, int claimed, bb_t key_x, bb_t key_o, int symmetry,
                bb_t legal) {
    word_t key = (word_t)key_x << 64 | key_o;
    const int64_t *seen = map_get(&c->seen, key);
    if (seen != NULL) return (int)*seen;
    if (map_put(&c->seen, key, 0) < 0) {
        PyErr_NoMemory();
        return -1;
    }
    if (++c->polls % POLL_EVERY == 0 && PyErr_CheckSignals() < 0) return -1;
    Entry entry;
    int stored = lookup(c, key_x, key_o, symmetry, &entry);
    int won = check(c, me, them, stored ? &entry : NULL, claimed, 0, legal);
    if (won < 0) return -1;
    if (stored && c->progress != NULL && c->checked % 100 == 0) {
        PyObject *so_far = report(c);
        PyObject *result = so_far == NULL ? NULL : PyObject_CallFunctionObjArgs(c->progress, so_far, NULL);
        Py_XDECREF(so_far);
        if (result == NULL) return -1;
        Py_DECREF(result);
    }
    if (map_put(&c->seen, key, won) < 0) {
        PyErr_NoMemory();
        return -1;
    }
    int ply = popcount(me | them);
    if (!c->by_plies[ply][0]) c->ply_order[c->nplies++] = ply;
    c->by_plies[ply][0]++;
    c->by_plies[ply][1] += won;
    return won;
}

/* check_entries' one step: a stored proven entry must have a legal move; any other
 * position must be won by threats. */
static int one_step(Check *c, bb_t me, bb_t them, int claimed, bb_t key_x, bb_t key_o,
                    int symmetry) {
    Entry entry;
    bb_t empty = c->tables->full & ~(me | them);
    if (lookup(c, key_x, key_o, symmetry, &entry) && entry.proven)
        return entry.move < c->tables->cells && (empty >> entry.move & 1);
    return check(c, me, them, NULL, claimed, 1, empty);
}

/* -- Python ---------------------------------------------------------------------------------- */
static void check_free(Check *c) {
    free(c->images);
    PyMem_Free(c->twos);
    map_free(&c->seen);
    map_free(&c->failed);
    Py_CLEAR(c->failures);
}

/* Set up a check of the records with the tables; -1 on an error. */
static int check_init(Check *c, PyObject *tables, PyObject *records, int depth) {
    memset(c, 0, sizeof(*c));
    if (!PyObject_TypeCheck(tables, TablesType)) {
        PyErr_SetString(PyExc_TypeError, "the checker needs the board's Tables");
        return -1;
    }
    if (depth < 0 || depth > MOST_THREATS) {
        PyErr_Format(PyExc_ValueError, "the threat checker plays 0 to %d threats", MOST_THREATS);
        return -1;
    }
    char *bytes;
    Py_ssize_t size;
    if (PyBytes_AsStringAndSize(records, &bytes, &size) < 0) return -1;
    if (size % RECORD_SIZE) {
        PyErr_SetString(PyExc_ValueError, "the strategy's records: a truncated record");
        return -1;
    }
    c->tables = (const Tables *)tables;
    c->records = (const unsigned char *)bytes;
    c->nrecords = size / RECORD_SIZE;
    c->depth = depth;
    c->twos = PyMem_Malloc((size_t)(depth + 2) * (size_t)c->tables->nlines * sizeof(bb_t) + 1);
    c->failures = PyList_New(0);
    if (c->twos == NULL || c->failures == NULL) {
        if (c->twos == NULL) PyErr_NoMemory();
        check_free(c);
        return -1;
    }
    if ((images_init(c) < 0 || map_init(&c->seen, 1024) < 0 || map_init(&c->failed, 64) < 0) &&
        PyErr_NoMemory() == NULL) {
        check_free(c);
        return -1;
    }
    return 0;
}

/* A position (its X and O marks) and its legal moves from Python; -1 if not valid. */
static int read_checked(const Tables *t, PyObject *x_value, PyObject *o_value,
                        PyObject *legal_value, bb_t *x, bb_t *o, bb_t *legal) {
    return read_position(x_value, o_value, NULL, t->full, x, o) < 0 ||
                   read_cells(legal_value, t->full, legal, "the legal moves leave the board") < 0
               ? -1
               : 0;
}

static PyObject *py_verify_strategy(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *tables, *records, *x_value, *o_value, *legal_value, *progress;
    int x_moves, depth;
    if (!PyArg_ParseTuple(args, "OOOOpOiO", &tables, &records, &x_value, &o_value, &x_moves,
                          &legal_value, &depth, &progress))
        return NULL;
    Check c;
    if (check_init(&c, tables, records, depth) < 0) return NULL;
    bb_t x, o, legal;
    if (read_checked(c.tables, x_value, o_value, legal_value, &x, &o, &legal) < 0) {
        check_free(&c);
        return NULL;
    }
    c.x_moves = x_moves;
    c.progress = progress == Py_None ? NULL : progress;
    bb_t me = x_moves ? x : o, them = x_moves ? o : x, key_x, key_o;
    int symmetry;
    key_of(&c, me, them, &key_x, &key_o, &symmetry);
    PyObject *result = NULL;
    if (walk(&c, me, them, 0, key_x, key_o, symmetry, legal) >= 0) result = report(&c);
    else if (!PyErr_Occurred()) PyErr_NoMemory(); /* (the threat checker's maps) */
    check_free(&c);
    return result;
}

static PyObject *py_check_entries(PyObject *module, PyObject *args) {
    (void)module;
    PyObject *tables, *records, *positions;
    int depth;
    if (!PyArg_ParseTuple(args, "OOOi", &tables, &records, &positions, &depth)) return NULL;
    PyObject *list = PySequence_List(positions);
    if (list == NULL) return NULL;
    Check c;
    if (check_init(&c, tables, records, depth) < 0) {
        Py_DECREF(list);
        return NULL;
    }
    PyObject *result = NULL;
    for (Py_ssize_t i = 0; i < SIZE(list); i++) {
        PyObject *x_value, *o_value, *legal_value;
        int x_moves;
        bb_t x, o, legal, key_x, key_o;
        if (!PyArg_ParseTuple(ITEM(list, i), "OOpO", &x_value, &o_value, &x_moves, &legal_value) ||
            read_checked(c.tables, x_value, o_value, legal_value, &x, &o, &legal) < 0)
            goto done;
        c.x_moves = x_moves;
        bb_t me = x_moves ? x : o, them = x_moves ? o : x;
        int symmetry;
        Entry entry;
        key_of(&c, me, them, &key_x, &key_o, &symmetry);
        int stored = lookup(&c, key_x, key_o, symmetry, &entry);
        if (check(&c, me, them, stored ? &entry : NULL, 1, 1, legal) < 0) goto done;
    }
    result = report(&c);
done:
    if (result == NULL && !PyErr_Occurred()) PyErr_NoMemory(); /* (the threat checker's maps) */
    check_free(&c);
    Py_DECREF(list);
    return result;
}

PyMethodDef check_functions[] = {
    {"verify_strategy", py_verify_strategy, METH_VARARGS,
     "verify_strategy(tables, records, x, o, x_moves, legal, depth, progress): walk the "
     "strategy's records from the position; (checked, threat_leaves, open_entries, unsolved, "
     "failures, by_plies)."},
    {"check_entries", py_check_entries, METH_VARARGS,
     "check_entries(tables, records, [(x, o, x_moves, legal), ...], depth): check each "
     "position's entry one step deep; the same report."},
    {NULL, NULL, 0, NULL},
};

