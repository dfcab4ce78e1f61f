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

int read_perms(PyObject *sequence, int cells, int most, uint8_t (*perms)[MAX_CELLS],
               uint8_t (*inverses)[MAX_CELLS], const char *what) {
    PyObject *list = PySequence_List(sequence);
    if (list == NULL) return -1;
    Py_ssize_t count = SIZE(list);
    if (count < 1 || count > most)
        PyErr_Format(PyExc_ValueError, "%s: 1 to %d symmetries", what, most);
    for (Py_ssize_t s = 0; s < count && !PyErr_Occurred(); s++)
        read_permutation(ITEM(list, s), cells, perms[s], inverses[s], what);
    Py_DECREF(list);
    return PyErr_Occurred() ? -1 : (int)count;
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

/* The tables' lines and the lines through each cell as read: each line k cells of the
 * board, each cell's lines exactly those through it, each once (the searches count marks
 * on a line through these: a line listed twice would count past k); each line's cells.
 * NULL, or what is wrong. */
static const char *tables_check(Tables *t) {
    for (int i = 0; i < t->nlines; i++) {
        bb_t line = t->lines[i];
        if (popcount(line) != t->k || (line & ~t->full))
            return "lines: a line off the board or of another length";
        int n = 0;
        for (bb_t rest = line; rest; rest &= rest - 1)
            t->line_cells[i][n++] = (uint8_t)lowest(rest);
    }
    for (int cell = 0; cell < t->cells; cell++) {
        bb_t listed[MAX_LINES / 64] = {0};
        int on_cell = 0;
        for (int i = 0; i < t->nlines; i++) on_cell += (int)((t->lines[i] >> cell) & 1);
        for (int j = 0; j < t->through_count[cell]; j++) {
            int index = t->through[cell][j];
            if (!((t->lines[index] >> cell) & 1) || (listed[index / 64] >> (index % 64) & 1))
                return "through: a line not through the cell";
            listed[index / 64] |= (bb_t)1 << (index % 64);
        }
        if (t->through_count[cell] != on_cell) return "through: a line through the cell is missing";
    }
    return NULL;
}

/* Tables(cells, k, lines, through, perms, base_x, base_o): the geometry's lines (as
 * bitmasks), the lines through each cell (indices, in the reference's order), the
 * symmetries to hash (cell permutations) and each side's 64-bit keys by cell. */
static PyObject *tables_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    int cells, k;
    PyObject *lines, *through, *perms, *bases[2], *rows = NULL;
    if (!parse_new(args, kwargs, "Tables", "iiOOOOO", &cells, &k, &lines, &through, &perms,
                   &bases[0], &bases[1]))
        return NULL;
    if (cells < 1 || cells > MAX_CELLS || k < 1 || k > MAX_K)
        return PyErr_Format(PyExc_ValueError,
                            "the compiled core takes boards of 1 to 64 cells, k of 1 to 16");
    Tables *self = object_new(type);
    if (self == NULL) return NULL;
    self->cells = cells;
    self->k = k;
    self->full = cells == 64 ? ~(bb_t)0 : (((bb_t)1 << cells) - 1);
    self->nlines = (int)read_bitboards(lines, self->lines, MAX_LINES,
                                       "too many lines for the compiled core");
    if (!PyErr_Occurred() && (rows = PySequence_List(through)) != NULL && SIZE(rows) != cells)
        PyErr_SetString(PyExc_ValueError, "through: one entry per cell");
    for (int cell = 0; cell < cells && !PyErr_Occurred(); cell++) {
        int64_t row[MAX_THROUGH];
        Py_ssize_t count = read_ints(ITEM(rows, cell), row, MAX_THROUGH, 0, self->nlines,
                                     "through: a line not through the cell");
        for (Py_ssize_t i = 0; i < count; i++) self->through[cell][i] = (uint16_t)row[i];
        self->through_count[cell] = (uint8_t)(count > 0 ? count : 0);
    }
    Py_XDECREF(rows);
    const char *wrong = PyErr_Occurred() ? NULL : tables_check(self);
    if (wrong != NULL) PyErr_SetString(PyExc_ValueError, wrong);
    if (!PyErr_Occurred())
        self->nsym = read_perms(perms, cells, MAX_SYMMETRIES, self->perms, self->inverse,
                                "perms: not a permutation of the cells");
    uint64_t base[2][MAX_CELLS];
    for (int side = 0; side < 2 && !PyErr_Occurred(); side++)
        if (read_bitboards(bases[side], base[side], MAX_CELLS, "base keys: one per cell") !=
                cells && !PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "base keys: one per cell");
    if (!PyErr_Occurred() && (self->zobrist = PyMem_Calloc(2, sizeof(*self->zobrist))) == NULL)
        PyErr_NoMemory();
    for (int side = 0; side < 2 && !PyErr_Occurred(); side++)
        for (int cell = 0; cell < cells; cell++)
            for (int s = 0; s < self->nsym; s++)
                self->zobrist[side][cell][s] = base[side][self->perms[s][cell]];
    return made(self);
}

static PyMemberDef tables_members[] = {
    {"cells", T_INT, offsetof(Tables, cells), READONLY, "The board's cells."},
    {"symmetries", T_INT, offsetof(Tables, nsym), READONLY, "The symmetries hashed."},
    {NULL, 0, 0, 0, NULL},
};

const Kind tables_kind = {
    .name = "noughts.search._core.Tables", .size = sizeof(Tables),
    .doc = "A board's constant tables for the compiled searches.",
    .make = tables_new, .dealloc = tables_dealloc, .members = tables_members,
    .type = &TablesType};

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
    poll->active = poll->has_deadline = poll->has_nodes = 0;
}

int poll_set(Poll *poll, PyObject *limit) {
    poll_clear(poll);
    if (limit == NULL || limit == Py_None) return 0;
    PyObject *deadline = PyObject_GetAttrString(limit, "deadline");
    PyObject *nodes = deadline ? PyObject_GetAttrString(limit, "node_limit") : NULL;
    PyObject *flag = nodes ? PyObject_GetAttrString(limit, "switch") : NULL;
    poll->has_deadline = flag != NULL && deadline != Py_None;
    poll->has_nodes = flag != NULL && nodes != Py_None;
    if (poll->has_deadline) poll->deadline = PyFloat_AsDouble(deadline);
    if (poll->has_nodes && !PyErr_Occurred()) as_count(nodes, &poll->node_limit);
    if (flag != NULL && !PyErr_Occurred() &&
        PyObject_GetBuffer(flag, &poll->view, PyBUF_SIMPLE) == 0) { /* (the Limit holds it) */
        poll->owns_view = 1;
        if (poll->view.len < 1) PyErr_SetString(PyExc_ValueError, "a limit's switch is one byte");
    }
    Py_XDECREF(deadline);
    Py_XDECREF(nodes);
    Py_XDECREF(flag);
    if (PyErr_Occurred()) {
        poll_clear(poll);
        return -1;
    }
    poll->off = (const volatile char *)poll->view.buf;
    poll->active = 1;
    return 0;
}

int poll_expired(const Poll *poll, int64_t nodes) {
    if (!poll->active) return 0;
    if (poll_cancelled(poll)) return 1;
    if (poll->has_nodes && nodes >= poll->node_limit) return 1;
    return poll->has_deadline && now_seconds() >= poll->deadline;
}

int lock_polled(PyThread_type_lock lock, const Poll *poll, int64_t nodes) {
    while (!PyThread_acquire_lock(lock, NOWAIT_LOCK)) {
        if (poll_expired(poll, nodes)) return -1;
        struct timespec pause = {0, 200000}; /* 0.2 ms */
        nanosleep(&pause, NULL);
    }
    return 0;
}

void poll_share(Poll *poll, const Poll *from, int64_t node_limit) {
    poll->active = from->active;
    poll->off = from->off;
    poll->has_deadline = from->has_deadline;
    poll->deadline = from->deadline;
    poll->has_nodes = 1;
    poll->node_limit = node_limit;
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
    else if (kind == STOP_UNPROVEN)
        PyErr_SetString(PyExc_ValueError, "the position is not proven");
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

/* (a word crosses as its 16 bytes in memory order: int.to_bytes, int.from_bytes) */
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define WORD_ORDER "big"
#else
#define WORD_ORDER "little"
#endif
int as_word(PyObject *value, word_t *out) {
    PyObject *bytes = PyObject_CallMethod(value, "to_bytes", "is", 16, WORD_ORDER);
    if (bytes == NULL) return -1;
    memcpy(out, PyBytes_AsString(bytes), 16); /* (to_bytes(16) makes 16 or raises) */
    Py_DECREF(bytes);
    return 0;
}

PyObject *from_word(word_t value) {
    return PyObject_CallMethod((PyObject *)&PyLong_Type, "from_bytes", "y#s",
                               (const char *)&value, (Py_ssize_t)16, WORD_ORDER);
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
int add_type(PyObject *module, const Kind *kind) {
    PyTypeObject **type = kind->type;
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

PyObject *made(void *self) {
    if (PyErr_Occurred()) Py_CLEAR(self);
    return self;
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

void lock_released(PyThread_type_lock lock) {
    if (PyThread_acquire_lock(lock, NOWAIT_LOCK)) return;
    Py_BEGIN_ALLOW_THREADS
    PyThread_acquire_lock(lock, WAIT_LOCK);
    Py_END_ALLOW_THREADS
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
