/* What the parts of the compiled core share: the board's tables, the limit, hash maps
 * and conversions (see core.h). */
#include "core.h"

#include <math.h>
#include <stdlib.h>
#include <time.h>

/* -- the board's tables -------------------------------------------------------------- */
PyTypeObject *TablesType = NULL;

static void tables_dealloc(PyObject *self) {
    Tables *tables = (Tables *)self;
    PyMem_Free(tables->zobrist);
    object_free(self);
}

int read_permutation(PyObject *sequence, int cells, uint8_t *perm, uint8_t *inverse,
                     const char *what) {
    int64_t images[MAX_CELLS];
    Py_ssize_t count = read_ints(sequence, images, MAX_CELLS, 0, cells, what);
    if (count < 0) return -1;
    bb_t seen = 0;
    for (int i = 0; i < count; i++) seen |= (bb_t)1 << images[i];
    if (count != cells || popcount(seen) != cells) {
        PyErr_Format(PyExc_ValueError, "%s (%d cells, each once)", what, cells);
        return -1;
    }
    for (int i = 0; i < cells; i++) {
        perm[i] = (uint8_t)images[i];
        inverse[images[i]] = (uint8_t)i;
    }
    return 0;
}

/* A Python sequence of at most most bitboards (ints of 0 to 2**64 - 1) into out: its
 * length, or -1 with a Python error (a ValueError naming what if it is too long). */
static Py_ssize_t read_bitboards(PyObject *sequence, bb_t *out, Py_ssize_t most,
                                 const char *what) {
    PyObject *list = PySequence_List(sequence);
    if (list == NULL) return -1;
    Py_ssize_t count = SIZE(list);
    if (count > most) PyErr_Format(PyExc_ValueError, "%s: more than %zd", what, most);
    for (Py_ssize_t i = 0; i < count && !PyErr_Occurred(); i++) as_bitboard(ITEM(list, i), &out[i]);
    Py_DECREF(list);
    return PyErr_Occurred() ? -1 : count;
}

/* Tables(cells, k, lines, through, perms, base_x, base_o): the geometry's lines (as
 * bitmasks), the lines through each cell (indices, in the reference's order), the
 * symmetries to hash (cell permutations) and each side's 64-bit keys by cell. */
static PyObject *tables_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    int cells, k;
    PyObject *lines, *through, *perms, *bases[2];
    if (!parse_new(args, kwargs, "Tables", "iiOOOOO", &cells, &k, &lines, &through, &perms,
                   &bases[0], &bases[1]))
        return NULL;
    if (cells < 1 || cells > MAX_CELLS || k < 1 || k > MAX_K) {
        PyErr_SetString(PyExc_ValueError,
                        "the compiled core takes boards of 1 to 64 cells, k of 1 to 16");
        return NULL;
    }
    Tables *self = object_new(type);
    if (self == NULL) return NULL;
    self->cells = cells;
    self->k = k;
    self->full = cells == 64 ? ~(bb_t)0 : (((bb_t)1 << cells) - 1);
    Py_ssize_t nlines = read_bitboards(lines, self->lines, MAX_LINES, "too many lines for "
                                       "the compiled core");
    if (nlines < 0) goto fail;
    self->nlines = (int)nlines;
    for (int i = 0; i < self->nlines; i++) {
        bb_t line = self->lines[i];
        if (popcount(line) != k || (line & ~self->full)) {
            PyErr_SetString(PyExc_ValueError, "lines: a line off the board or of another length");
            goto fail;
        }
        int n = 0;
        for (bb_t rest = line; rest; rest &= rest - 1) self->line_cells[i][n++] = (uint8_t)lowest(rest);
    }
    PyObject *rows = PySequence_List(through), *perm_list = NULL;
    if (rows == NULL) goto fail;
    if (SIZE(rows) != cells) PyErr_SetString(PyExc_ValueError, "through: one entry per cell");
    for (int cell = 0; cell < cells && !PyErr_Occurred(); cell++) {
        /* exactly the lines through the cell, each once (the searches count marks on
         * a line through these: a line listed twice would count past k) */
        int64_t row[MAX_THROUGH];
        Py_ssize_t count = read_ints(ITEM(rows, cell), row, MAX_THROUGH, 0, nlines,
                                     "through: a line not through the cell");
        bb_t listed[MAX_LINES / 64] = {0};
        int on_cell = 0;
        for (int i = 0; i < self->nlines; i++) on_cell += (int)((self->lines[i] >> cell) & 1);
        for (Py_ssize_t i = 0; i < count; i++) {
            int64_t index = row[i];
            if (!((self->lines[index] >> cell) & 1) || (listed[index / 64] >> (index % 64) & 1)) {
                PyErr_SetString(PyExc_ValueError, "through: a line not through the cell");
                break;
            }
            listed[index / 64] |= (bb_t)1 << (index % 64);
            self->through[cell][i] = (uint16_t)index;
        }
        self->through_count[cell] = (uint8_t)count;
        if (!PyErr_Occurred() && count != on_cell)
            PyErr_SetString(PyExc_ValueError, "through: a line through the cell is missing");
    }
    Py_DECREF(rows);
    if (!PyErr_Occurred()) perm_list = PySequence_List(perms);
    if (perm_list == NULL) goto fail;
    self->nsym = (int)SIZE(perm_list);
    if (self->nsym < 1 || self->nsym > MAX_SYMMETRIES)
        PyErr_SetString(PyExc_ValueError, "perms: 1 to 192 symmetries");
    for (int s = 0; s < self->nsym && !PyErr_Occurred(); s++)
        read_permutation(ITEM(perm_list, s), cells, self->perms[s], self->inverse[s],
                         "perms: not a permutation of the cells");
    Py_DECREF(perm_list);
    if (PyErr_Occurred()) goto fail;
    self->zobrist = PyMem_Calloc(2, sizeof(*self->zobrist));
    if (self->zobrist == NULL) { PyErr_NoMemory(); goto fail; }
    for (int side = 0; side < 2; side++) {
        uint64_t base[MAX_CELLS];
        Py_ssize_t count = read_bitboards(bases[side], base, MAX_CELLS, "base keys: one per cell");
        if (count < 0) goto fail;
        if (count != cells) {
            PyErr_SetString(PyExc_ValueError, "base keys: one per cell");
            goto fail;
        }
        for (int cell = 0; cell < cells; cell++)
            for (int s = 0; s < self->nsym; s++)
                self->zobrist[side][cell][s] = base[self->perms[s][cell]];
    }
    return (PyObject *)self;
fail:
    Py_DECREF(self);
    return NULL;
}

static PyMemberDef tables_members[] = {
    {"cells", T_INT, offsetof(Tables, cells), READONLY, "The board's cells."},
    {"symmetries", T_INT, offsetof(Tables, nsym), READONLY, "The symmetries hashed."},
    {NULL, 0, 0, 0, NULL},
};

int tables_add_type(PyObject *module) {
    static const Kind kind = {
        .name = "noughts.search._core.Tables", .size = sizeof(Tables),
        .doc = "A board's constant tables for the compiled searches.",
        .make = tables_new, .dealloc = tables_dealloc, .members = tables_members};
    return add_type(module, &kind, &TablesType);
}

/* -- the limit ---------------------------------------------------------------------- */
double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);  /* the clock of time.perf_counter() */
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void poll_clear(Poll *poll) {
    if (poll->owns_view) PyBuffer_Release(&poll->view);
    poll->owns_view = 0;
    poll->off = NULL;
    Py_CLEAR(poll->limit);
    poll->has_deadline = poll->has_nodes = 0;
}

int poll_set(Poll *poll, PyObject *limit) {
    poll_clear(poll);
    if (limit == NULL || limit == Py_None) return 0;
    double deadline_value = 0.0;
    int64_t node_limit = 0;
    PyObject *deadline = PyObject_GetAttrString(limit, "deadline");
    if (deadline == NULL) return -1;
    int has_deadline = deadline != Py_None;
    if (has_deadline) {
        deadline_value = PyFloat_AsDouble(deadline);
        if (deadline_value == -1.0 && PyErr_Occurred()) { Py_DECREF(deadline); return -1; }
    }
    Py_DECREF(deadline);
    PyObject *nodes = PyObject_GetAttrString(limit, "node_limit");
    if (nodes == NULL) return -1;
    int has_nodes = nodes != Py_None;
    if (has_nodes && as_count(nodes, &node_limit) < 0) { Py_DECREF(nodes); return -1; }
    Py_DECREF(nodes);
    PyObject *flag = PyObject_GetAttrString(limit, "switch");
    if (flag == NULL) return -1;
    int taken = PyObject_GetBuffer(flag, &poll->view, PyBUF_SIMPLE);
    Py_DECREF(flag); /* (the Limit holds it) */
    if (taken < 0) return -1;
    if (poll->view.len < 1) {
        PyBuffer_Release(&poll->view);
        PyErr_SetString(PyExc_ValueError, "a limit's switch is one byte");
        return -1;
    }
    poll->owns_view = 1;
    poll->off = (const volatile char *)poll->view.buf;
    poll->has_deadline = has_deadline;
    poll->deadline = deadline_value;
    poll->has_nodes = has_nodes;
    poll->node_limit = node_limit;
    Py_INCREF(limit);
    poll->limit = limit;
    return 0;
}

int poll_expired(const Poll *poll, int64_t nodes) {
    if (poll->limit == NULL) return 0;
    if (poll_cancelled(poll)) return 1;
    if (poll->has_nodes && nodes >= poll->node_limit) return 1;
    return poll->has_deadline && now_seconds() >= poll->deadline;
}

void poll_share(Poll *poll, const Poll *from, int64_t node_limit) {
    if (poll->limit != from->limit) {
        if (poll->owns_view) PyBuffer_Release(&poll->view);
        poll->owns_view = 0;
        PyObject *old = poll->limit;
        Py_XINCREF(from->limit);
        poll->limit = from->limit;
        Py_XDECREF(old);
    }
    poll->off = from->off;
    poll->has_deadline = from->has_deadline;
    poll->deadline = from->deadline;
    poll->has_nodes = 1;
    poll->node_limit = node_limit;
}

PyObject *poll_get(Poll *poll) {
    PyObject *limit = poll->limit != NULL ? poll->limit : Py_None;
    Py_INCREF(limit);
    return limit;
}

int as_count(PyObject *value, int64_t *out) {
    int overflow = 0;
    long long number = PyLong_AsLongLongAndOverflow(value, &overflow);
    if (number == -1 && PyErr_Occurred()) return -1;
    if (overflow > 0 || number > COUNT_EDGE) number = COUNT_EDGE;
    if (overflow < 0 || number < -COUNT_EDGE) number = -COUNT_EDGE;
    *out = number;
    return 0;
}

static void raise_exhausted(void) {
    PyObject *budget = PyImport_ImportModule("noughts.budget");
    if (budget == NULL) return;
    PyObject *kind = PyObject_GetAttrString(budget, "BudgetExhausted");
    Py_DECREF(budget);
    if (kind == NULL) return;
    PyErr_SetNone(kind);
    Py_DECREF(kind);
}

PyObject *stopped(int *stop) {
    int kind = *stop;
    *stop = 0;
    if (kind == STOP_LIMIT) raise_exhausted();
    else if (kind == STOP_MEMORY) PyErr_NoMemory();
    else if (kind == STOP_LOST)
        PyErr_SetString(PyExc_KeyError,
                        "a child's position is gone from the proof table (cleared meanwhile?)");
    return NULL;
}

/* -- hash maps ------------------------------------------------------------------------ */
#define MOVE_STEP 64 /* slots of the old table moved at each put (a microsecond or so): it
                        is gone long before the bigger table is half full */

/* Fresh slots: malloc'd keys and values, calloc'd marks (large ones come from the
 * system already zeroed, page by page as they are first touched: no up-front cost). */
static int slots_init(Slots *slots, size_t capacity) {
    slots->keys = malloc(capacity * sizeof(word_t));
    slots->values = malloc(capacity * sizeof(int64_t));
    slots->used = calloc(capacity, 1);
    slots->capacity = capacity;
    if (slots->keys == NULL || slots->values == NULL || slots->used == NULL) {
        free(slots->keys);
        free(slots->values);
        free(slots->used);
        memset(slots, 0, sizeof(*slots));
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

static void slots_free(Slots *slots) {
    free(slots->keys);
    free(slots->values);
    free(slots->used);
    memset(slots, 0, sizeof(*slots));
}

/* The slot holding key, or -1. */
static ptrdiff_t slots_find(const Slots *slots, word_t key) {
    size_t mask = slots->capacity - 1;
    for (size_t slot = word_hash(key) & mask;; slot = (slot + 1) & mask) {
        if (!slots->used[slot]) return -1;
        if (slots->used[slot] == 1 && slots->keys[slot] == key) return (ptrdiff_t)slot;
    }
}

/* Put key (not held yet) in its first empty slot. */
static void slots_add(Slots *slots, word_t key, int64_t value) {
    size_t mask = slots->capacity - 1, slot = word_hash(key) & mask;
    while (slots->used[slot]) slot = (slot + 1) & mask;
    slots->used[slot] = 1;
    slots->keys[slot] = key;
    slots->values[slot] = value;
}

int map_init(Map *map, size_t capacity) {
    size_t size = 16;
    while (size < capacity) size <<= 1;
    memset(map, 0, sizeof(*map));
    return slots_init(&map->now, size);
}

void map_free(Map *map) {
    slots_free(&map->now);
    slots_free(&map->before);
    map->moved = map->count = 0;
}

void map_clear(Map *map) {
    slots_free(&map->before);
    if (map->count) memset(map->now.used, 0, map->now.capacity);
    map->moved = map->count = 0;
}

int64_t *map_get(const Map *map, word_t key) {
    ptrdiff_t slot = slots_find(&map->now, key);
    if (slot >= 0) return &map->now.values[slot];
    if (map->before.capacity == 0) return NULL;
    slot = slots_find(&map->before, key);
    return slot >= 0 ? &map->before.values[slot] : NULL;
}

/* Move up to step slots of the old table to the new one (every entry of the old table
 * is absent from the new: a put of its key moves it). */
static void map_move(Map *map, size_t step) {
    Slots *before = &map->before;
    for (size_t end = map->moved + step; map->moved < end && map->moved < before->capacity;
         map->moved++) {
        size_t slot = map->moved;
        if (before->used[slot] != 1) continue;
        slots_add(&map->now, before->keys[slot], before->values[slot]);
        before->used[slot] = 2;
    }
    if (map->moved == before->capacity) {
        slots_free(before);
        map->moved = 0;
    }
}

int map_put(Map *map, word_t key, int64_t value) {
    if (map->before.capacity) {
        map_move(map, MOVE_STEP);
    } else if (2 * (map->count + 1) > map->now.capacity) {
        Slots bigger;
        if (slots_init(&bigger, map->now.capacity * 2) < 0) return -1;
        map->before = map->now;
        map->now = bigger;
        map->moved = 0;
        map_move(map, MOVE_STEP);
    }
    ptrdiff_t slot = slots_find(&map->now, key);
    if (slot >= 0) {
        map->now.values[slot] = value;
        return 0;
    }
    slot = map->before.capacity ? slots_find(&map->before, key) : -1;
    if (slot >= 0) map->before.used[slot] = 2; /* moves to the new table */
    else map->count++;
    slots_add(&map->now, key, value);
    return 0;
}

int map_next(const Map *map, size_t *cursor, word_t *key, int64_t *value) {
    const Slots *tables[2] = {&map->now, &map->before};
    for (;; (*cursor)++) {
        size_t at = *cursor;
        const Slots *slots = tables[0];
        if (at >= slots->capacity) {
            at -= slots->capacity;
            slots = tables[1];
            if (at >= slots->capacity) return 0;
        }
        if (slots->used[at] == 1) {
            *key = slots->keys[at];
            *value = slots->values[at];
            (*cursor)++;
            return 1;
        }
    }
}

/* -- conversions ----------------------------------------------------------------------- */
int as_bitboard(PyObject *value, bb_t *out) {
    unsigned long long bits = PyLong_AsUnsignedLongLong(value);
    if (bits == (unsigned long long)-1 && PyErr_Occurred()) return -1;
    *out = (bb_t)bits;
    return 0;
}

PyObject *from_bitboard(bb_t value) { return PyLong_FromUnsignedLongLong(value); }

int as_word(PyObject *value, word_t *out) {
    PyObject *sixty_four = PyLong_FromLong(64);
    PyObject *mask = PyLong_FromUnsignedLongLong(~0ULL);
    if (sixty_four == NULL || mask == NULL) {
        Py_XDECREF(sixty_four);
        Py_XDECREF(mask);
        return -1;
    }
    PyObject *low = PyNumber_And(value, mask);
    PyObject *high = PyNumber_Rshift(value, sixty_four);
    Py_DECREF(sixty_four);
    Py_DECREF(mask);
    int result = -1;
    if (low != NULL && high != NULL) {
        unsigned long long lo = PyLong_AsUnsignedLongLong(low);
        unsigned long long hi = PyErr_Occurred() ? 0 : PyLong_AsUnsignedLongLong(high);
        if (!PyErr_Occurred()) {
            *out = ((word_t)hi << 64) | lo;
            result = 0;
        }
    }
    Py_XDECREF(low);
    Py_XDECREF(high);
    return result;
}

PyObject *from_word(word_t value) {
    PyObject *low = PyLong_FromUnsignedLongLong((uint64_t)value);
    PyObject *high = PyLong_FromUnsignedLongLong((uint64_t)(value >> 64));
    PyObject *sixty_four = PyLong_FromLong(64);
    PyObject *result = NULL;
    if (low != NULL && high != NULL && sixty_four != NULL) {
        PyObject *shifted = PyNumber_Lshift(high, sixty_four);
        if (shifted != NULL) {
            result = PyNumber_Or(shifted, low);
            Py_DECREF(shifted);
        }
    }
    Py_XDECREF(low);
    Py_XDECREF(high);
    Py_XDECREF(sixty_four);
    return result;
}

PyObject *cells_list(const int *cells, int count) {
    PyObject *list = PyList_New(count);
    if (list == NULL) return NULL;
    for (int i = 0; i < count; i++) {
        PyObject *cell = PyLong_FromLong(cells[i]);
        if (cell == NULL) { Py_DECREF(list); return NULL; }
        PyList_SetItem(list, i, cell);
    }
    return list;
}

/* -- the glue -------------------------------------------------------------------------- */
int add_type(PyObject *module, const Kind *kind, PyTypeObject **type) {
    PyType_Slot slots[8];
    int n = 0;
    slots[n++] = (PyType_Slot){Py_tp_new, kind->make};
    slots[n++] = (PyType_Slot){Py_tp_dealloc, kind->dealloc};
    slots[n++] = (PyType_Slot){Py_tp_doc, (void *)kind->doc};
    if (kind->methods) slots[n++] = (PyType_Slot){Py_tp_methods, kind->methods};
    if (kind->members) slots[n++] = (PyType_Slot){Py_tp_members, kind->members};
    if (kind->getset) slots[n++] = (PyType_Slot){Py_tp_getset, kind->getset};
    if (kind->length) slots[n++] = (PyType_Slot){Py_mp_length, kind->length};
    slots[n] = (PyType_Slot){0, NULL};
    PyType_Spec spec = {kind->name, kind->size, 0, Py_TPFLAGS_DEFAULT, slots};
    *type = (PyTypeObject *)PyType_FromSpec(&spec);
    if (*type == NULL) return -1;
    Py_INCREF((PyObject *)*type); /* the module's reference (this one stays ours) */
    if (PyModule_AddObject(module, strrchr(kind->name, '.') + 1, (PyObject *)*type) < 0) {
        Py_DECREF(*type);
        return -1;
    }
    return 0;
}

void *object_new(PyTypeObject *type) {
    allocfunc tp_alloc = (allocfunc)PyType_GetSlot(type, Py_tp_alloc);
    return tp_alloc(type, 0); /* (zeroed: PyType_GenericAlloc) */
}

void object_free(PyObject *self) {
    PyTypeObject *type = Py_TYPE(self);
    freefunc tp_free = (freefunc)PyType_GetSlot(type, Py_tp_free);
    tp_free(self);
    Py_DECREF(type);
}

int parse_new(PyObject *args, PyObject *kwargs, const char *type, const char *format, ...) {
    if (kwargs != NULL && PyDict_Size(kwargs)) {
        PyErr_Format(PyExc_TypeError, "%s takes positional arguments only", type);
        return 0;
    }
    va_list values;
    va_start(values, format);
    int parsed = PyArg_VaParse(args, format, values);
    va_end(values);
    return parsed;
}

PyObject *get_count(PyObject *self, void *offset) {
    return PyLong_FromLongLong(*(int64_t *)((char *)self + (size_t)offset));
}

int set_count(PyObject *self, PyObject *value, void *offset) {
    if (value == NULL) {
        PyErr_SetString(PyExc_AttributeError, "a count cannot be deleted");
        return -1;
    }
    return as_count(value, (int64_t *)((char *)self + (size_t)offset));
}

int idle(const int *busy, const char *what) {
    if (__atomic_load_n(busy, __ATOMIC_ACQUIRE)) {
        PyErr_Format(PyExc_RuntimeError, "the %s is busy with a call in another thread", what);
        return -1;
    }
    return 0;
}

int claim(int *busy, const char *what) {
    if (idle(busy, what) < 0) return -1;
    *busy = 1;
    return 0;
}

Py_ssize_t read_ints(PyObject *sequence, int64_t *out, Py_ssize_t most, int64_t low,
                     int64_t high, const char *what) {
    PyObject *list = PySequence_List(sequence);
    if (list == NULL) return -1;
    Py_ssize_t count = SIZE(list);
    if (count > most) {
        PyErr_Format(PyExc_ValueError, "%s (more than %zd)", what, most);
        count = -1;
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        int overflow = 0;
        long long value = PyLong_AsLongLongAndOverflow(ITEM(list, i), &overflow);
        if (value == -1 && PyErr_Occurred()) {
            count = -1;
        } else if (overflow || value < low || value >= high) {
            PyErr_Format(PyExc_ValueError, "%s (%S)", what, ITEM(list, i));
            count = -1;
        } else {
            out[i] = value;
        }
    }
    Py_DECREF(list);
    return count;
}

/* -- reading a position ---------------------------------------------------------------- */
int read_cells(PyObject *value, bb_t full, bb_t *out, const char *off_board) {
    if (as_bitboard(value, out) < 0) {
        if (!PyErr_ExceptionMatches(PyExc_OverflowError)) return -1;
        PyErr_Clear(); /* a negative number, or one past 64 cells */
        *out = ~(bb_t)0;
    }
    if (*out & ~full) {
        PyErr_SetString(PyExc_ValueError, off_board);
        return -1;
    }
    return 0;
}

int read_position(PyObject *x_value, PyObject *o_value, const int *to_move, bb_t full,
                  bb_t *x, bb_t *o) {
    if (to_move != NULL && *to_move != 0 && *to_move != 1) {
        PyErr_Format(PyExc_ValueError, "the side to move is 0 (X) or 1 (O), not %d", *to_move);
        return -1;
    }
    static const char *off_board =
        "the marks leave the board: they must lie on the board, on different cells";
    if (read_cells(x_value, full, x, off_board) < 0 || read_cells(o_value, full, o, off_board) < 0)
        return -1;
    if (*x & *o) {
        PyErr_SetString(PyExc_ValueError,
                        "the marks share a cell: they must lie on the board, on different cells");
        return -1;
    }
    return 0;
}
