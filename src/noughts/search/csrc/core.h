/* The compiled search core of noughts: what its parts share.
 *
 * Every search here is a faithful port of its pure-Python reference in
 * noughts.search (board, pvs, misere, threats, proof) and noughts.exact (negamax):
 * the same move order, the same table semantics, the same node counts. The strategy
 * checker (noughts/builders/csrc/check.c, compiled into the same module) ports
 * noughts.builders.strategy_check and stands apart, with the builders: it shares the
 * plumbing below, never a search, since it checks what the searches built. Boards
 * of up to 64 cells: a bitboard is one uint64_t, bit i is cell i.
 *
 * Built against the CPython stable ABI (Py_LIMITED_API 3.11), so one wheel serves
 * every Python from 3.11 on.
 */
#ifndef NOUGHTS_CORE_H
#define NOUGHTS_CORE_H

#define Py_LIMITED_API 0x030B0000
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef uint64_t bb_t;        /* a bitboard of up to 64 cells */
typedef unsigned __int128 word_t; /* two bitboards side by side: a position's word */

/* The boards the core takes, exported as module constants of the same names (the
 * dispatcher's fits_compiled reads them; a board beyond them plays on the Python core) */
#define MAX_CELLS 64          /* a bitboard is one uint64_t */
#define MAX_LINES 256         /* the tables' lines (the through table holds uint16_t) */
#define MAX_K 16              /* marks in a line; the exact search's line weights
                                 1 + 4**marks stay far inside 64 bits up to here */
#define MAX_SYMMETRIES 192    /* the tables' hashed symmetries */
#define MAX_KEY_SYMMETRIES 256 /* the exact search's key symmetries */
#define MAX_THROUGH 64        /* lines through one cell */

#if defined(__x86_64__) && !defined(__POPCNT__)
/* x86-64's baseline has no popcnt instruction, and the builtin then calls a library
 * routine (a table lookup per byte): counting in the register is several times faster */
static inline int popcount(bb_t b) {
    b = b - ((b >> 1) & 0x5555555555555555ULL);
    b = (b & 0x3333333333333333ULL) + ((b >> 2) & 0x3333333333333333ULL);
    b = (b + (b >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
    return (int)((b * 0x0101010101010101ULL) >> 56);
}
#else
static inline int popcount(bb_t b) { return __builtin_popcountll(b); }
#endif
static inline int lowest(bb_t b) { return __builtin_ctzll(b); }       /* b != 0 */
static inline int highest(bb_t b) { return 63 - __builtin_clzll(b); } /* b != 0 */

/* A position's canonical key: the least of its hashes under the count symmetries, and
 * into *symmetry (unless NULL) the first symmetry giving it. */
static inline uint64_t least_key(const uint64_t *hashes, int count, int *symmetry) {
    uint64_t best = hashes[0];
    int index = 0;
    for (int sym = 1; sym < count; sym++)
        if (hashes[sym] < best) {
            best = hashes[sym];
            index = sym;
        }
    if (symmetry != NULL) *symmetry = index;
    return best;
}

/* Insert cell with value into out[0..n), kept by descending value (values alongside);
 * among equal values the cell inserted later goes first when later_first, else last.
 * The new count. */
static inline int insert_ranked(int64_t *values, int *out, int n, int64_t value, int cell,
                                const int later_first) {
    int j = n;
    while (j > 0 && (values[j - 1] < value || (later_first && values[j - 1] == value))) {
        values[j] = values[j - 1];
        out[j] = out[j - 1];
        j--;
    }
    values[j] = value;
    out[j] = cell;
    return n + 1;
}

/* -- the board's constant tables (noughts.search.board.Tables) -------------------- */
typedef struct {
    PyObject_HEAD
    int cells, k, nlines, nsym;
    bb_t full;
    bb_t lines[MAX_LINES];
    uint8_t line_cells[MAX_LINES][MAX_K];   /* each line's cells, lowest first */
    uint8_t through_count[MAX_CELLS];
    uint16_t through[MAX_CELLS][MAX_THROUGH]; /* lines through each cell, in line order */
    uint8_t perms[MAX_SYMMETRIES][MAX_CELLS];
    uint8_t inverse[MAX_SYMMETRIES][MAX_CELLS];
    /* zobrist[side][cell][s]: the key of side on the image of cell under symmetry s */
    uint64_t (*zobrist)[MAX_CELLS][MAX_SYMMETRIES];
} Tables;

extern PyTypeObject *TablesType;

/* -- a search's limit (noughts.budget.Limit), polled ------------------------------ */
/* The limit crosses into C as plain values: its deadline, its node limit and its cancel
 * switch (Limit.switch, a bytearray of one byte, held exported so that it cannot move);
 * a poll reads them with no Python call, so it may run without the GIL and still see a
 * cancel made meanwhile by another thread. */
typedef struct {
    int active;          /* 0: no limit at all */
    int has_deadline, has_nodes;
    double deadline;     /* time.perf_counter() seconds: CLOCK_MONOTONIC */
    int64_t node_limit;
    const volatile char *off; /* the cancel switch's byte (nonzero: cancelled), or NULL */
    Py_buffer view;      /* the switch's exported buffer, when this poll owns it */
    int owns_view;
} Poll;

double now_seconds(void);
/* Read a Limit's deadline, node limit and cancel switch (None for no limit at all); -1
 * on error. */
int poll_set(Poll *poll, PyObject *limit);
void poll_clear(Poll *poll);
/* Limit.expired(nodes): cancelled, nodes >= its node limit, or past its deadline.
 * 1 expired, 0 not (no Python call: safe without the GIL). */
int poll_expired(const Poll *poll, int64_t nodes);
/* Lock a mutex without the GIL, polling the limit meanwhile (as at nodes): 0 locked, -1
 * the limit ran out first. */
int lock_polled(PyThread_type_lock lock, const Poll *poll, int64_t nodes);
/* Limit.cancelled: 1 cancelled, 0 not (or no limit); safe without the GIL. */
static inline int poll_cancelled(const Poll *poll) {
    return poll->off != NULL && __atomic_load_n(poll->off, __ATOMIC_RELAXED) != 0;
}
/* Limit.limited(deadline=from's deadline, node_limit=node_limit) of from's limit: its
 * cancel switch (borrowed from from, which must outlive this poll's use) and deadline,
 * another node limit. poll must own nothing (never poll_set): no Python call, so it
 * runs without the GIL. */
void poll_share(Poll *poll, const Poll *from, int64_t node_limit);

/* A node count or limit from a Python int, clamped to +-COUNT_EDGE (2**62: beyond any
 * count a search reaches, with room to add to it); 0, or -1 with a Python error. */
#define COUNT_EDGE ((int64_t)1 << 62)
int as_count(PyObject *value, int64_t *out);

/* How a search stopped (its stop field; 0 while it goes on). */
enum { STOP_LIMIT = 1,  /* the limit ran out: BudgetExhausted */
       STOP_MEMORY = 2, /* out of memory (no Python error set yet: the search ran
                           without the GIL) */
       STOP_LOST = 4,   /* a proof table lost a position (cleared meanwhile): KeyError */
       STOP_UNPROVEN = 5 }; /* a proof's reading met a position not proven: ValueError */
/* The Python result of a stopped search: the error its stop names (stop is reset). */
PyObject *stopped(int *stop);

/* -- hash maps with full keys (the reference's dicts) ----------------------------- */
/* Keys are unsigned 128-bit words (a 64-bit key is a word with a zero high half).
 * Values are int64. Open addressing, linear probing, a power-of-two capacity that
 * doubles at half load; map_clear empties it, as dict.clear(). A map grows a little at
 * a time: at half load it takes a table twice the size for new entries and moves the
 * old table's entries over a few at each map_put, so no put stalls a search (moving a
 * million entries at once took 0.1-0.4 s). */
typedef struct {
    word_t *keys;
    int64_t *values;
    uint8_t *used; /* 0 empty, 1 an entry, 2 an entry gone to the bigger table */
    size_t capacity;
} Slots;

typedef struct {
    Slots now;    /* where entries go */
    Slots before; /* while the map grows: the smaller table (capacity 0 otherwise) */
    size_t moved; /* the slots of before moved so far */
    size_t count; /* the entries, in both tables */
} Map;

static inline size_t word_hash(word_t key) {
    uint64_t low = (uint64_t)key, high = (uint64_t)(key >> 64);
    uint64_t h = low ^ (high * 0x9E3779B97F4A7C15ULL);
    h ^= h >> 33;
    h *= 0xFF51AFD7ED558CCDULL;
    h ^= h >> 33;
    return (size_t)h;
}

/* Ask the caches for the slot where a search for key starts (a hint: no effect on
 * what the map holds). */
static inline void map_prefetch(const Map *map, word_t key) {
    size_t slot = word_hash(key) & (map->now.capacity - 1);
    __builtin_prefetch(&map->now.used[slot]);
    __builtin_prefetch(&map->now.keys[slot]);
}

/* An empty map; -1 out of memory (no Python error set). */
int map_init(Map *map, size_t capacity);
void map_free(Map *map);
void map_clear(Map *map);
/* The value of key (valid until the next map_put or map_clear), or NULL. */
int64_t *map_get(const Map *map, word_t key);
/* Set key to value (insert or replace); -1 on memory error, with no Python error set (a
 * search may call it without the GIL). */
int map_put(Map *map, word_t key, int64_t value);
/* Every entry once: start *cursor at 0; 0 once there are no more. */
int map_next(const Map *map, size_t *cursor, word_t *key, int64_t *value);

/* -- the threat-space search (threats.c: noughts.search.threat_search) ------------- */
#define MAX_CHAIN (MAX_CELLS + 4) /* a chain's moves, both sides' */

typedef struct {
    const Tables *tables; /* borrowed: the owner holds a reference */
    int k, shift, levels;
    int64_t nodes, most_nodes;
    bb_t hint;
    Map failed;  /* (attacker << cells | defender) -> the threats tried there */
    Poll poll;
    int stop;    /* while searching: STOP_LIMIT or STOP_MEMORY */
    bb_t *work;  /* each level's two-lines and options */
} Threats;

/* A threat search of the board; -1 out of memory (no Python error set). */
int threats_init(Threats *t, const Tables *tables);
void threats_free(Threats *t);
/* ThreatSearch.chain: a chain of at most max_threats threats for the attacker (to move,
 * with the two-lines twos[count]; block the defender's one completing cell or -1) into
 * line; its length, 0 for none (or the limit ran out), -1 out of memory (no Python error
 * set: it runs without the GIL). */
int threats_chain(Threats *t, bb_t attacker, bb_t defender, const bb_t *twos, int count,
                  int block, int max_threats, int *line);
/* defences() and chain_survives() of noughts.search.threat_search. */
bb_t threats_defences(const Tables *tables, bb_t attacker, bb_t defender, const int *line,
                      int length);
int threats_chain_survives(const Tables *tables, bb_t attacker, bb_t defender, int move,
                           const int *line, int length);

/* -- Python conversions ------------------------------------------------------------ */
/* The stable ABI has no fast sequence macros: a sequence is read as a new list, its
 * items borrowed with ITEM(list, i). */
#define ITEM(list, i) PyList_GetItem((list), (i))
#define SIZE(list) PyList_Size(list)
int as_bitboard(PyObject *value, bb_t *out);   /* a non-negative int below 2**64 */
PyObject *from_bitboard(bb_t value);
int as_word(PyObject *value, word_t *out);     /* a non-negative int below 2**128 */
PyObject *from_word(word_t value);
PyObject *cells_list(const int *cells, int count); /* [cell, ...] */

/* A permutation of cells cells from a Python sequence into perm, its inverse into
 * inverse; 0, or -1 with a ValueError naming what. */
int read_permutation(PyObject *sequence, int cells, uint8_t *perm, uint8_t *inverse,
                     const char *what);
/* A sequence of 1 to most such permutations (what names them); their count, or -1. */
int read_perms(PyObject *sequence, int cells, int most, uint8_t (*perms)[MAX_CELLS],
               uint8_t (*inverses)[MAX_CELLS], const char *what);

/* -- reading a position at the border (every search type reads its input here) ----- */
/* Cells of a board of full cells from a Python int: 0, or -1 with the ValueError
 * off_board if some lie off it (an int that is negative or past 64 bits does too). */
int read_cells(PyObject *value, bb_t full, bb_t *out, const char *off_board);
/* A position's two sides' marks (X and O, or attacker and defender): on the board and on
 * different cells; and the side to move, 0 (X) or 1 (O), unless to_move is NULL. 0, or
 * -1 with a ValueError naming the problem. */
int read_position(PyObject *x_value, PyObject *o_value, const int *to_move, bb_t full,
                  bb_t *x, bb_t *o);

/* -- the glue: what every type's binding shares ---------------------------------------- */
/* A type of the module, from its parts (NULL or 0 where it has none). */
typedef struct {
    const char *name;   /* the full name: "noughts.search._core.Search" */
    const char *doc;
    int size;
    newfunc make;
    destructor dealloc; /* frees what the object owns, then object_free */
    PyMethodDef *methods;
    PyMemberDef *members;
    PyGetSetDef *getset;
    lenfunc length;     /* len() */
    PyTypeObject **type; /* where the type made is kept */
} Kind;

/* Make the type (into *kind->type) and add it to the module under its short name; 0, or
 * -1. */
int add_type(PyObject *module, const Kind *kind);
/* A new object of type, zeroed past its head (NULL on error). */
void *object_new(PyTypeObject *type);
/* A constructor's result: self, or NULL (self dropped) if a Python error is set. */
PyObject *made(void *self);
/* A dealloc's last step: free the object and drop its reference to its type. */
void object_free(PyObject *self);
/* A constructor's arguments: positional only (a TypeError naming the type if kwargs
 * holds any), then PyArg_ParseTuple's format. 1, or 0 with a Python error. */
int parse_new(PyObject *args, PyObject *kwargs, const char *type, const char *format, ...);

/* An int64 field read and set as a Python int (setting clamps it, as_count): a member
 * of every search, {"nodes", get_count, set_count, doc, COUNT_AT(Type, field)}. */
#define COUNT_AT(type, field) ((void *)offsetof(type, field))
PyObject *get_count(PyObject *self, void *offset);
int set_count(PyObject *self, PyObject *value, void *offset);

/* One call at a time: a search busy in a call (which may run without the GIL) refuses
 * another meanwhile with a RuntimeError naming what. claim marks it busy, release ends
 * it; idle checks without claiming. 0, or -1 with that error. */
int idle(const int *busy, const char *what);
int claim(int *busy, const char *what);
static inline void release(int *busy) { __atomic_store_n(busy, 0, __ATOMIC_RELEASE); }

/* Lock a mutex that a search holds without the GIL: called with the GIL, it waits
 * without it. */
void lock_released(PyThread_type_lock lock);

/* A Python sequence of at most most ints, each in [low, high), into out: its length, or
 * -1 with a ValueError naming what (a TypeError if it is not a sequence of ints). */
Py_ssize_t read_ints(PyObject *sequence, int64_t *out, Py_ssize_t most, int64_t low,
                     int64_t high, const char *what);

/* -- the parts: the types and functions each adds to the module (module.c) ---------- */
extern const Kind tables_kind;       /* common.c: a board's tables */
extern const Kind search_kind;       /* pvs.c: the board and the anytime search */
extern const Kind threat_search_kind; /* threats.c, with threats_functions */
extern const Kind proof_table_kind, proof_search_kind; /* proof.c */
extern const Kind exact_kind;        /* exact.c */
extern PyMethodDef threats_functions[];
extern PyMethodDef check_functions[]; /* builders/csrc/check.c: the strategy checker */

#endif
