/* The threat-space search in C: a faithful port of noughts/search/threat_search.py
 * (ThreatSearch, defences, chain_survives). The same two-lines in the same order, the
 * same options in the same order (the last chain's moves first), the same table of
 * failed positions, the same node counts and limit checks; read the reference for the
 * why of each step. */
#include "core.h"

#include <stdlib.h>

#define NO_NODE_LIMIT ((int64_t)1 << 62)
#define DEFAULT_MAX_THREATS 12

/* -- the search ------------------------------------------------------------------------- */
int threats_init(Threats *t, const Tables *tables) {
    memset(t, 0, sizeof(*t));
    t->tables = tables;
    t->k = tables->k;
    t->shift = tables->cells;
    /* each level plays two cells: at most cells / 2 levels below the first */
    t->levels = tables->cells / 2 + 2;
    t->work = malloc(((size_t)t->levels * 5 * (size_t)tables->nlines + 1) * sizeof(bb_t));
    if (t->work == NULL) return -1;
    return map_init(&t->failed, 64);
}

void threats_free(Threats *t) {
    map_free(&t->failed);
    poll_clear(&t->poll);
    free(t->work);
    t->work = NULL;
}

static inline bb_t bit_of(int cell) { return (bb_t)1 << cell; }

/* ThreatSearch._search: a chain from this position of at most depth single threats and
 * then a double threat, into out; its length or 0. Sets t->stop when the limit ran out
 * (the reference's BudgetExhausted) or memory did. No Python call: it runs without the
 * GIL. */
static int search(Threats *t, bb_t att, bb_t dfn, const bb_t *twos, int ntwos, int block,
                  int depth, int level, int *out) {
    t->nodes++;
    if (t->nodes >= t->most_nodes) {
        t->stop = 1;
        return 0;
    }
    if ((t->nodes & 127) == 0) {
        if (poll_expired(&t->poll, t->nodes)) {
            t->stop = STOP_LIMIT;
            return 0;
        }
    }
    const Tables *tables = t->tables;
    int nlines = tables->nlines, k = t->k;
    bb_t free = ~(att | dfn);
    bb_t *threat = t->work + (size_t)level * 5 * nlines + nlines;
    bb_t *reply = threat + 2 * nlines;
    int noptions = 0;
    if (block >= 0) { /* the defender threatens: block, and the block must threaten */
        bb_t bit = bit_of(block);
        int first = -1, second = -1;
        for (int i = 0; i < ntwos; i++)
            if (twos[i] & bit) {
                if (first < 0) {
                    first = i;
                } else {
                    second = i;
                    break;
                }
            }
        if (second >= 0) {
            out[0] = block;
            out[1] = highest((twos[first] & free) ^ bit);
            out[2] = highest((twos[second] & free) ^ bit);
            return 3;
        }
        if (first < 0 || !depth) return 0;
        threat[0] = bit;
        reply[0] = (twos[first] & free) ^ bit;
        noptions = 1;
    } else {
        bb_t seen = 0;
        for (int i = 0; i < ntwos; i++) {
            bb_t cells = twos[i] & free;
            bb_t fork = seen & cells;
            if (fork) { /* a cell on two two-lines: playing it makes two threats */
                fork &= -fork;
                int hits[2], nhits = 0;
                for (int j = 0; j < ntwos && nhits < 2; j++)
                    if (twos[j] & fork) hits[nhits++] = j;
                out[0] = lowest(fork);
                out[1] = highest((twos[hits[0]] & free) ^ fork);
                out[2] = highest((twos[hits[1]] & free) ^ fork);
                return 3;
            }
            seen |= cells;
        }
        if (!depth) return 0;
        /* the options: the hint's moves first, then the rest, each in the lines' order
         * (a line's lower cell first) */
        bb_t hint = t->hint;
        for (int pass = 0; pass < 2; pass++)
            for (int i = 0; i < ntwos; i++) {
                bb_t cells = twos[i] & free;
                bb_t low = cells & -cells, high = cells ^ low;
                if (((low & hint) != 0) == (pass == 0)) {
                    threat[noptions] = low;
                    reply[noptions++] = high;
                }
                if (((high & hint) != 0) == (pass == 0)) {
                    threat[noptions] = high;
                    reply[noptions++] = low;
                }
            }
    }
    word_t key = ((word_t)att << t->shift) | dfn;
    const int64_t *failed = map_get(&t->failed, key);
    if (failed != NULL && *failed >= depth) return 0;
    if (level + 1 >= t->levels) return 0; /* (never: each level fills two cells) */
    bb_t *after = t->work + (size_t)(level + 1) * 5 * nlines;
    for (int o = 0; o < noptions; o++) {
        bb_t att2 = att | threat[o], dfn2 = dfn | reply[o];
        int cell = highest(reply[o]);
        bb_t counter = 0; /* cells where the forced reply makes the defender threaten */
        for (int j = 0; j < tables->through_count[cell]; j++) {
            bb_t line = tables->lines[tables->through[cell][j]];
            if (!(line & att2) && popcount(line & dfn2) == k - 1) counter |= line & ~dfn2;
        }
        if (counter & (counter - 1)) continue; /* two counter-threats: the chain breaks */
        bb_t gone = threat[o] | reply[o];
        int nafter = 0;
        for (int i = 0; i < ntwos; i++)
            if (!(twos[i] & gone)) after[nafter++] = twos[i];
        int move = highest(threat[o]);
        for (int j = 0; j < tables->through_count[move]; j++) {
            bb_t line = tables->lines[tables->through[move][j]];
            if (!(line & dfn2) && popcount(line & att2) == k - 2) after[nafter++] = line;
        }
        int found = search(t, att2, dfn2, after, nafter, counter ? highest(counter) : -1,
                           depth - 1, level + 1, out + 2);
        if (t->stop) return 0;
        if (found) {
            out[0] = move;
            out[1] = cell;
            return found + 2;
        }
    }
    if (map_put(&t->failed, key, depth) < 0) t->stop = STOP_MEMORY;
    return 0;
}

int threats_chain(Threats *t, bb_t attacker, bb_t defender, const bb_t *twos, int count,
                  int block, int max_threats, int *line) {
    t->most_nodes = t->poll.has_nodes ? t->poll.node_limit : NO_NODE_LIMIT;
    if (poll_cancelled(&t->poll)) return 0;
    t->stop = 0;
    int length = search(t, attacker, defender, twos, count, block, max_threats, 0, line);
    int stop = t->stop;
    t->stop = 0;
    if (stop == STOP_MEMORY) return -1;
    if (stop == STOP_LIMIT) return 0;
    if (length) {
        bb_t hint = 0;
        for (int i = 0; i < length; i += 2) hint |= bit_of(line[i]);
        t->hint = hint;
    }
    return length;
}

/* ThreatSearch._setup: the cell completing an attacker's line (or -1), the defender's
 * one completing cell (-1 none, -2 two or more), and the attacker's two-lines. */
static int setup(const Threats *t, bb_t att, bb_t dfn, int *block, bb_t *twos, int *count) {
    const Tables *tables = t->tables;
    int k = t->k, win = -1, n = 0;
    bb_t blocks = 0;
    for (int i = 0; i < tables->nlines; i++) {
        bb_t line = tables->lines[i];
        if (line & dfn) {
            if (!(line & att) && popcount(line & dfn) == k - 1) blocks |= line & ~dfn;
            continue;
        }
        int marks = popcount(line & att);
        if (marks == k - 1)
            win = highest(line & ~att);
        else if (marks == k - 2)
            twos[n++] = line;
    }
    *count = n;
    *block = (blocks & (blocks - 1)) ? -2 : blocks ? highest(blocks) : -1;
    return win;
}

/* ThreatSearch.refute at each depth from least to most (refute itself when least ==
 * most), as find deepens: the line's length, 0 for none (or the limit ran out), -1 on a
 * Python error. The setup is the same at every depth: it is made once. */
static int deepen(Threats *t, bb_t att, bb_t dfn, int least, int most, int *line) {
    int block, count;
    bb_t *twos = t->work; /* level 0's two-lines (the search never writes them) */
    int win = setup(t, att, dfn, &block, twos, &count);
    for (int depth = least; depth <= most; depth++) {
        if (win >= 0) {
            line[0] = win;
            return 1;
        }
        if (block != -2) {
            int length = threats_chain(t, att, dfn, twos, count, block, depth, line);
            if (length) return length;
        }
        if (depth < most) { /* find: stop deepening once the limit ran out */
            if (poll_expired(&t->poll, t->nodes)) return 0;
        }
    }
    return 0;
}

/* -- defences ----------------------------------------------------------------------------- */
int threats_chain_survives(const Tables *tables, bb_t attacker, bb_t defender, int move,
                           const int *line, int length) {
    int k = tables->k;
    bb_t counter = 0;
    for (int j = 0; j < tables->through_count[move]; j++) {
        bb_t each = tables->lines[tables->through[move][j]];
        if (!(each & attacker) && popcount(each & defender) == k - 1)
            counter |= each & ~defender;
    }
    bb_t occupied = attacker | defender;
    for (int index = 0; index < length; index += 2) {
        bb_t bit = bit_of(line[index]);
        if ((bit & occupied) || (counter && counter != bit))
            return 0; /* the cell is taken, or the defender's threat goes unanswered */
        counter = 0;
        attacker |= bit;
        occupied |= bit;
        bb_t made = 0;
        int cell = line[index];
        for (int j = 0; j < tables->through_count[cell]; j++) {
            bb_t each = tables->lines[tables->through[cell][j]];
            if (!(each & defender)) {
                int marks = popcount(each & attacker);
                if (marks == k) return 1;
                if (marks == k - 1) made |= each & ~attacker;
            }
        }
        if (!made) return 0;
        if (made & (made - 1)) return 1; /* a double threat */
        if (index + 1 >= length || made != bit_of(line[index + 1])) return 0;
        int reply = line[index + 1];
        defender |= made;
        occupied |= made;
        for (int j = 0; j < tables->through_count[reply]; j++) {
            bb_t each = tables->lines[tables->through[reply][j]];
            if (!(each & attacker) && popcount(each & defender) == k - 1)
                counter |= each & ~defender;
        }
        if (counter & (counter - 1)) return 0;
    }
    return 0;
}

bb_t threats_defences(const Tables *tables, bb_t attacker, bb_t defender, const int *line,
                      int length) {
    int k = tables->k;
    bb_t occupied = attacker | defender, cells = 0, replies = defender, counters = 0;
    for (int i = 0; i < length; i++) cells |= bit_of(line[i]);
    for (int i = 1; i < length; i += 2) replies |= bit_of(line[i]);
    for (int i = 0; i < tables->nlines; i++) {
        bb_t each = tables->lines[i];
        if (!(each & attacker) && popcount(each & replies) >= k - 2) counters |= each & ~occupied;
    }
    bb_t result = cells;
    for (bb_t rest = counters & ~cells; rest; rest &= rest - 1) {
        int cell = lowest(rest);
        if (!threats_chain_survives(tables, attacker, defender | bit_of(cell), cell, line, length))
            result |= bit_of(cell);
    }
    return result;
}

/* -- Python ------------------------------------------------------------------------------- */
typedef struct {
    PyObject_HEAD
    Tables *tables;
    Threats threats;
    int busy; /* in a call: a second call meanwhile gets a clear error */
} ThreatSearchObject;

static PyTypeObject *ThreatSearchType = NULL;

/* A chain as a Python list (None for none), or NULL on an error. */
static PyObject *chain_result(int length, const int *line) {
    if (length < 0) return PyErr_NoMemory();
    if (length == 0) Py_RETURN_NONE;
    return cells_list(line, length);
}

/* find (shortest: every depth from 0) or refute (the given depth only) of (attacker,
 * defender, max_threats=12, limit=None), without the GIL, one call at a time: a second
 * call into the same search meanwhile gets a clear error. */
static PyObject *threat_search_call(PyObject *self, PyObject *args, PyObject *kwargs,
                                    int shortest) {
    static char *keywords[] = {"attacker", "defender", "max_threats", "limit", NULL};
    ThreatSearchObject *s = (ThreatSearchObject *)self;
    PyObject *a, *b, *limit = Py_None;
    bb_t att, dfn;
    int max_threats = DEFAULT_MAX_THREATS, line[MAX_CHAIN], length;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OO|iO", keywords, &a, &b, &max_threats,
                                     &limit) ||
        (max_threats < 0 && !PyErr_Format(PyExc_ValueError, "max_threats must be at least 0")) ||
        read_position(a, b, NULL, s->tables->full, &att, &dfn) < 0 ||
        claim(&s->busy, "threat search") < 0)
        return NULL;
    if (poll_set(&s->threats.poll, limit) < 0) {
        release(&s->busy);
        return NULL;
    }
    Py_BEGIN_ALLOW_THREADS
    length = deepen(&s->threats, att, dfn, shortest ? 0 : max_threats, max_threats, line);
    Py_END_ALLOW_THREADS
    release(&s->busy);
    return chain_result(length, line);
}

static PyObject *threat_search_refute(PyObject *self, PyObject *args, PyObject *kwargs) {
    return threat_search_call(self, args, kwargs, 0);
}

static PyObject *threat_search_find(PyObject *self, PyObject *args, PyObject *kwargs) {
    return threat_search_call(self, args, kwargs, 1);
}

static PyObject *threat_search_exhausted(PyObject *self, PyObject *unused) {
    (void)unused;
    ThreatSearchObject *s = (ThreatSearchObject *)self;
    return PyBool_FromLong(poll_expired(&s->threats.poll, s->threats.nodes));
}

static PyObject *threat_search_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    PyObject *tables;
    if (!parse_new(args, kwargs, "ThreatSearch", "O!", TablesType, &tables)) return NULL;
    ThreatSearchObject *self = object_new(type);
    if (self == NULL) return NULL;
    Py_INCREF(tables);
    self->tables = (Tables *)tables;
    if (threats_init(&self->threats, self->tables) < 0) PyErr_NoMemory();
    return made(self);
}

static void threat_search_dealloc(PyObject *self) {
    ThreatSearchObject *s = (ThreatSearchObject *)self;
    threats_free(&s->threats);
    Py_XDECREF((PyObject *)s->tables);
    object_free(self);
}

static PyGetSetDef threat_search_getset[] = {
    {"nodes", get_count, set_count, "Positions searched so far.",
     COUNT_AT(ThreatSearchObject, threats.nodes)},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMemberDef threat_search_members[] = {
    {"hint", T_ULONGLONG, offsetof(ThreatSearchObject, threats.hint), READONLY,
     "The attacker's moves of the last chain found."},
    {"failed_entries", T_PYSSIZET, offsetof(ThreatSearchObject, threats.failed.count),
     READONLY, "How many positions the table of failed positions holds."},
    {NULL, 0, 0, 0, NULL},
};

static PyMethodDef threat_search_methods[] = {
    {"find", (PyCFunction)(void (*)(void))threat_search_find, METH_VARARGS | METH_KEYWORDS,
     "find(attacker, defender, max_threats=12, limit=None): the shortest forced line, or "
     "None."},
    {"refute", (PyCFunction)(void (*)(void))threat_search_refute,
     METH_VARARGS | METH_KEYWORDS,
     "refute(attacker, defender, max_threats=12, limit=None): any forced line, or None."},
    {"exhausted", threat_search_exhausted, METH_NOARGS,
     "True once the last call's limit has run out."},
    {NULL, NULL, 0, NULL},
};

/* defences' and chain_survives' arguments: (tables, attacker, defender, [move,] line),
 * the move (none when move is NULL) on the board; the line's length, or -1. */
static int read_chain(PyObject *args, const Tables **t, bb_t *att, bb_t *dfn, int *move,
                      int *line) {
    PyObject *tables, *a, *b, *chain;
    int64_t cells[MAX_CHAIN];
    if (!(move ? PyArg_ParseTuple(args, "O!OOiO", TablesType, &tables, &a, &b, move, &chain)
               : PyArg_ParseTuple(args, "O!OOO", TablesType, &tables, &a, &b, &chain)))
        return -1;
    *t = (const Tables *)tables;
    if (read_position(a, b, NULL, (*t)->full, att, dfn) < 0) return -1;
    if (move && (*move < 0 || *move >= (*t)->cells))
        return PyErr_Format(PyExc_ValueError, "cell %d is not on the board", *move), -1;
    Py_ssize_t length = read_ints(chain, cells, MAX_CHAIN, 0, (*t)->cells,
                                  "a chain: a cell not on the board");
    for (Py_ssize_t i = 0; i < length; i++) line[i] = (int)cells[i];
    return (int)length;
}

static PyObject *py_defences(PyObject *module, PyObject *args) {
    (void)module;
    const Tables *t;
    bb_t att, dfn;
    int line[MAX_CHAIN], length = read_chain(args, &t, &att, &dfn, NULL, line);
    return length < 0 ? NULL : from_bitboard(threats_defences(t, att, dfn, line, length));
}

static PyObject *py_chain_survives(PyObject *module, PyObject *args) {
    (void)module;
    const Tables *t;
    bb_t att, dfn;
    int move, line[MAX_CHAIN], length = read_chain(args, &t, &att, &dfn, &move, line);
    return length < 0 ? NULL
                      : PyBool_FromLong(threats_chain_survives(t, att, dfn, move, line, length));
}

PyMethodDef threats_functions[] = {
    {"defences", py_defences, METH_VARARGS,
     "defences(tables, attacker, defender, line): the replies that may stop the chain."},
    {"chain_survives", py_chain_survives, METH_VARARGS,
     "chain_survives(tables, attacker, defender, move, line): the chain still wins."},
    {NULL, NULL, 0, NULL},
};

const Kind threat_search_kind = {
    .name = "noughts.search._core.ThreatSearch", .size = sizeof(ThreatSearchObject),
    .doc = "The threat-space search, compiled: ThreatSearch(tables).",
    .make = threat_search_new, .dealloc = threat_search_dealloc,
    .methods = threat_search_methods, .members = threat_search_members,
    .getset = threat_search_getset,
    .type = &ThreatSearchType};
