/* The proof-number search in C: a faithful port of noughts/search/proof_search.py (df-pn
 * with its board, the threat chains at the leaves, the defences, the canonical keys
 * over the symmetries, the table's entries with their moves and child keys). Every
 * branch, move order, table rule and node count is the reference's; read it for the
 * why of each step. */
#include "core.h"

#include <stdlib.h>

#define INFINITY_PN ((int64_t)1 << 40)
#define OPEN_PROOF 10
#define QUIET_PROOF 30
#define FORK_BONUS 3
#define NONE (-1)

/* -- the table (the reference's dict of entries) --------------------------------------- */
typedef struct {
    int64_t pn, dn;
    int64_t moves; /* the node's moves in the key's orientation: an offset into the move
                      pool, or NONE before it is expanded */
    int64_t keys;  /* their positions' keys: an offset into the key pool, or NONE until
                      all were looked at */
    int32_t chain; /* plies of the threat chain that settles the node, or 0 */
    int16_t move;  /* in the key's orientation, or -1 */
    uint8_t count; /* how many moves */
} Entry;

typedef struct {
    PyObject_HEAD
    Map index; /* key -> entry number */
    Entry *entries;
    size_t count, capacity;
    uint8_t *move_pool;
    size_t moves_used, moves_capacity;
    uint64_t *key_pool;
    size_t keys_used, keys_capacity;
    Tables *tables; /* the board of the searches sharing it (the first one's) */
    int users;      /* searches in a call now (another thread may clear it meanwhile) */
    PyThread_type_lock lock; /* held by the search in a call (which may run without the GIL) */
} ProofTable;

static PyTypeObject *ProofTableType = NULL;

/* Room for `more` items in a pool of `size`-byte items (in the C heap: the search grows
 * it without the GIL); -1 on memory error, with no Python error set. */
static int reserve(void **pool, size_t *capacity, size_t used, size_t more, size_t size) {
    if (used + more <= *capacity) return 0;
    size_t bigger = *capacity ? *capacity : 1024;
    while (bigger < used + more) bigger *= 2;
    void *grown = realloc(*pool, bigger * size);
    if (grown == NULL) return -1;
    *pool = grown;
    *capacity = bigger;
    return 0;
}

/* Free the table's entries (all when the table goes); then, unless it goes, a fresh
 * index: -1 out of memory (no Python error set). */
static int table_empty(ProofTable *table, int goes) {
    map_free(&table->index);
    free(table->entries);
    free(table->move_pool);
    free(table->key_pool);
    table->entries = NULL;
    table->move_pool = NULL;
    table->key_pool = NULL;
    table->count = table->capacity = 0;
    table->moves_used = table->moves_capacity = 0;
    table->keys_used = table->keys_capacity = 0;
    return goes ? 0 : map_init(&table->index, 1024);
}

/* The entry number of key, or -1. */
static inline int64_t table_get(const ProofTable *table, uint64_t key) {
    const int64_t *number = map_get(&table->index, (word_t)key);
    return number == NULL ? -1 : *number;
}

/* Store a new entry under key; its number, or -1 on memory error. */
static int64_t table_add(ProofTable *table, uint64_t key, const Entry *entry) {
    if (reserve((void **)&table->entries, &table->capacity, table->count, 1, sizeof(Entry)) < 0)
        return -1;
    int64_t number = (int64_t)table->count;
    if (map_put(&table->index, (word_t)key, number) < 0) return -1;
    table->entries[table->count++] = *entry;
    return number;
}

static PyObject *table_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    if (!parse_new(args, kwargs, "ProofTable", ":ProofTable")) return NULL;
    ProofTable *self = object_new(type);
    if (self == NULL) return NULL;
    self->lock = PyThread_allocate_lock();
    if (self->lock == NULL || table_empty(self, 0) < 0) PyErr_NoMemory();
    return made(self);
}

static void table_dealloc(PyObject *self) {
    ProofTable *table = (ProofTable *)self;
    table_empty(table, 1);
    if (table->lock != NULL) PyThread_free_lock(table->lock);
    Py_XDECREF((PyObject *)table->tables);
    object_free(self);
}

static Py_ssize_t table_length(PyObject *self) { return (Py_ssize_t)((ProofTable *)self)->count; }

static PyObject *table_clear(PyObject *self, PyObject *unused) {
    (void)unused;
    if (((ProofTable *)self)->users)
        return PyErr_Format(PyExc_RuntimeError, "the proof table is in use by a running search");
    if (table_empty((ProofTable *)self, 0) < 0) return PyErr_NoMemory();
    Py_RETURN_NONE;
}

static PyMethodDef table_methods[] = {
    {"clear", table_clear, METH_NOARGS, "Remove every entry (and free their memory)."},
    {NULL, NULL, 0, NULL},
};

/* -- the search and its board --------------------------------------------------------- */
typedef struct {
    PyObject_HEAD
    Tables *tables;
    ProofTable *table;
    Poll poll; /* the search's limit */
    Threats threats;
    int attacker, leaf_threat_nodes, max_threats, cells, k, nsym, nlines;
    int64_t nodes;
    int stop; /* why the search stops (STOP_LIMIT...); unwind */
    /* the board (the reference's _Board) */
    bb_t bits[2], wins[2];
    int stm, ply;
    uint64_t hashes[MAX_SYMMETRIES];
    bb_t *twos;                     /* each ply's attacker two-lines: nlines apiece */
    int twos_count[MAX_CELLS + 1];
    bb_t saved_wins[MAX_CELLS + 1][2];
    int played[MAX_CELLS + 1];
    int public_plies;               /* moves made by play() */
    int busy;                       /* in a call (which may let another thread run) */
} ProofSearch;

static PyTypeObject *ProofSearchType = NULL;

static inline bb_t bit_of(int cell) { return (bb_t)1 << cell; }
static inline Entry *entry_at(ProofSearch *s, int64_t number) { return &s->table->entries[number]; }
static inline bb_t empty_cells(const ProofSearch *s) {
    return s->tables->full & ~(s->bits[0] | s->bits[1]);
}
static inline int attacking(const ProofSearch *s) { return s->stm == s->attacker; }
static inline const bb_t *current_twos(const ProofSearch *s) {
    return s->twos + (size_t)s->ply * s->nlines;
}

static bb_t completions(const ProofSearch *s, int side) {
    bb_t mine = s->bits[side], theirs = s->bits[1 - side], result = 0;
    for (int i = 0; i < s->nlines; i++) {
        bb_t line = s->tables->lines[i];
        if (!(line & theirs) && popcount(line & mine) == s->k - 1) result |= line & ~mine;
    }
    return result;
}

static void board_play(ProofSearch *s, int cell) {
    const Tables *t = s->tables;
    int side = s->stm, k = s->k;
    bb_t bit = bit_of(cell);
    s->saved_wins[s->ply][0] = s->wins[0];
    s->saved_wins[s->ply][1] = s->wins[1];
    s->played[s->ply] = cell;
    s->bits[side] |= bit;
    const uint64_t *keys = t->zobrist[side][cell];
    for (int sym = 0; sym < s->nsym; sym++) s->hashes[sym] ^= keys[sym];
    s->stm = 1 - side;
    bb_t mine = s->bits[side], theirs = s->bits[1 - side];
    bb_t made = s->wins[side] & ~bit;
    for (int j = 0; j < t->through_count[cell]; j++) {
        bb_t line = t->lines[t->through[cell][j]];
        if (!(line & theirs) && popcount(line & mine) == k - 1) made |= line & ~mine;
    }
    s->wins[side] = made;
    s->wins[1 - side] &= ~bit;
    const bb_t *twos = current_twos(s);
    int count = s->twos_count[s->ply], n = 0;
    bb_t *after = s->twos + (size_t)(s->ply + 1) * s->nlines;
    for (int i = 0; i < count; i++)
        if (!(twos[i] & bit)) after[n++] = twos[i];
    if (side == s->attacker)
        for (int j = 0; j < t->through_count[cell]; j++) {
            bb_t line = t->lines[t->through[cell][j]];
            if (!(line & theirs) && popcount(line & mine) == k - 2) after[n++] = line;
        }
    s->ply++;
    s->twos_count[s->ply] = n;
}

static void board_undo(ProofSearch *s, int cell) {
    int side = 1 - s->stm;
    s->ply--;
    s->bits[side] ^= bit_of(cell);
    const uint64_t *keys = s->tables->zobrist[side][cell];
    for (int sym = 0; sym < s->nsym; sym++) s->hashes[sym] ^= keys[sym];
    s->stm = side;
    s->wins[0] = s->saved_wins[s->ply][0];
    s->wins[1] = s->saved_wins[s->ply][1];
}

/* The table key (the least of the hashes) and the symmetry that maps the position onto
 * the key's orientation (the first with the least hash). */
static inline uint64_t board_key(const ProofSearch *s, int *symmetry) {
    return least_key(s->hashes, s->nsym, symmetry);
}

/* cells less those a symmetry of the position maps onto an earlier one; the count. */
static int distinct(const ProofSearch *s, int *cells, int count) {
    const Tables *t = s->tables;
    int symmetry;
    uint64_t best = board_key(s, &symmetry);
    int mapping[MAX_SYMMETRIES], nmap = 0;
    for (int sym = 0; sym < s->nsym; sym++)
        if (s->hashes[sym] == best) mapping[nmap++] = sym;
    if (nmap == 1) return count;
    const uint8_t *back = t->inverse[mapping[0]];
    bb_t seen = 0;
    int kept = 0;
    for (int i = 0; i < count; i++) {
        int cell = cells[i];
        if (seen & bit_of(cell)) continue;
        cells[kept++] = cell;
        for (int m = 0; m < nmap; m++) seen |= bit_of(back[t->perms[mapping[m]][cell]]);
    }
    return kept;
}

/* The attacker's threat potential: two pot cells count one, a fork point FORK_BONUS. */
static int64_t potential(const ProofSearch *s) {
    bb_t free = ~(s->bits[0] | s->bits[1]), seen = 0, forks = 0;
    const bb_t *twos = current_twos(s);
    int count = s->twos_count[s->ply];
    for (int i = 0; i < count; i++) {
        bb_t cells = twos[i] & free;
        forks |= seen & cells;
        seen |= cells;
    }
    return count + FORK_BONUS * popcount(forks);
}

/* cells for the side to move, the most useful first (then the lower cell); the count. */
static int ordered(const ProofSearch *s, bb_t cells, int *out) {
    const Tables *t = s->tables;
    bb_t mine = s->bits[s->stm], theirs = s->bits[1 - s->stm];
    int64_t scores[MAX_CELLS];
    int n = 0;
    for (; cells; cells &= cells - 1) {
        int cell = lowest(cells);
        int64_t score = 0;
        for (int j = 0; j < t->through_count[cell]; j++) {
            bb_t line = t->lines[t->through[cell][j]];
            if (!(line & theirs))
                score += (int64_t)1 << (2 * popcount(line & mine));
            else if (!(line & mine))
                score += (int64_t)1 << popcount(line & theirs);
        }
        n = insert_ranked(scores, out, n, score, cell, 0); /* (cells come ascending) */
    }
    return n;
}

/* -- the limit ------------------------------------------------------------------------- */
/* Limit.check(nodes): 0 to go on, else the search stops. */
static int check(ProofSearch *s) {
    int expired = poll_expired(&s->poll, s->nodes);
    if (expired) s->stop = STOP_LIMIT;
    return expired;
}

/* The attacker's threat chain from the board (as if it were to move) into line, within
 * leaf_threat_nodes positions; its length or 0. Stops the search when its own limit ran
 * out meanwhile. */
static int chain(ProofSearch *s, bb_t block, int *line) {
    Threats *threats = &s->threats;
    int64_t before = threats->nodes;
    int64_t cap = before + s->leaf_threat_nodes;
    if (s->poll.has_nodes) {
        int64_t left = s->poll.node_limit - s->nodes;
        if (before + (left > 0 ? left : 0) < cap) cap = before + (left > 0 ? left : 0);
    }
    poll_share(&threats->poll, &s->poll, cap);
    int attacker = s->attacker;
    int length = threats_chain(threats, s->bits[attacker], s->bits[1 - attacker],
                               current_twos(s), s->twos_count[s->ply],
                               block ? highest(block) : -1, s->max_threats, line);
    if (length < 0) {
        s->stop = STOP_MEMORY;
        return 0;
    }
    s->nodes += threats->nodes - before;
    if (!length) check(s);
    return length;
}

/* -- the rules of a node ------------------------------------------------------------- */
static inline Entry make_entry(int64_t pn, int64_t dn, int move, int chain_plies) {
    Entry entry = {pn, dn, NONE, NONE, chain_plies, (int16_t)move, 0};
    return entry;
}

static inline int oriented(const ProofSearch *s, int cell) {
    int symmetry;
    board_key(s, &symmetry);
    return s->tables->perms[symmetry][cell];
}

/* A new position's entry: settled by the rules or a threat chain, else initial proof
 * numbers from the attacker's threat potential. 0, or -1 when the search stops. */
static int leaf(ProofSearch *s, Entry *entry) {
    int attacker = s->attacker, line[MAX_CHAIN];
    bb_t mine = s->wins[attacker], theirs = s->wins[1 - attacker];
    bb_t empty = empty_cells(s);
    if (attacking(s)) {
        if (mine) {
            *entry = make_entry(0, INFINITY_PN, oriented(s, highest(mine)), 1);
            return 0;
        }
        if ((theirs & (theirs - 1)) || !empty) {
            *entry = make_entry(INFINITY_PN, 0, -1, 0);
            return 0;
        }
        int length = chain(s, theirs, line);
        if (s->stop) return -1;
        if (length) {
            *entry = make_entry(0, INFINITY_PN, oriented(s, line[0]), length);
            return 0;
        }
        int64_t proof = OPEN_PROOF - potential(s) / 2;
        *entry = make_entry(proof > 1 ? proof : 1, popcount(empty), -1, 0);
        return 0;
    }
    if (theirs || !empty) { /* the defender completes a line, or the board is full */
        *entry = make_entry(INFINITY_PN, 0, -1, 0);
        return 0;
    }
    if (mine & (mine - 1)) { /* two threats: one stays open */
        *entry = make_entry(0, INFINITY_PN, -1, 2);
        return 0;
    }
    if (mine) { /* the defender has one move: the block */
        *entry = make_entry(1, 1, -1, 0);
        return 0;
    }
    int length = chain(s, 0, line);
    if (s->stop) return -1;
    if (length) { /* the attacker threatens a chain: the defender must answer it */
        int64_t proof = 2 + length / 2;
        *entry = make_entry(proof > 2 ? proof : 2, 1, -1, 0);
        return 0;
    }
    int64_t proof = QUIET_PROOF - potential(s);
    *entry = make_entry(proof > 2 ? proof : 2, 1, -1, 0);
    return 0;
}

/* The entry number of the position under key, evaluated as a leaf and stored if new;
 * -1 when the search stops. */
static int64_t entry_of(ProofSearch *s, uint64_t key) {
    int64_t number = table_get(s->table, key);
    if (number >= 0) return number;
    Entry fresh;
    if (leaf(s, &fresh) < 0) return -1;
    number = table_add(s->table, key, &fresh);
    if (number < 0) s->stop = STOP_MEMORY;
    return number;
}

/* The moves worth searching for the side to move, into out; their count, or -1 when the
 * search stops. number is the position's entry, symmetry its key's. */
static int moves(ProofSearch *s, int64_t number, int symmetry, int *out) {
    const Tables *t = s->tables;
    Entry *entry = entry_at(s, number);
    if (entry->moves != NONE) {
        const uint8_t *cached = s->table->move_pool + entry->moves;
        const uint8_t *inverse = t->inverse[symmetry];
        for (int i = 0; i < entry->count; i++) out[i] = inverse[cached[i]];
        return entry->count;
    }
    int count;
    bb_t theirs = s->wins[1 - s->stm];
    if (theirs) {
        out[0] = highest(theirs);
        count = 1;
    } else {
        bb_t cells = empty_cells(s);
        if (!attacking(s)) {
            int line[MAX_CHAIN];
            int length = chain(s, 0, line);
            if (s->stop) return -1;
            if (length) {
                int attacker = s->attacker;
                cells &= threats_defences(t, s->bits[attacker], s->bits[1 - attacker], line,
                                          length);
                entry_at(s, number)->chain = length;
            }
        }
        count = distinct(s, out, ordered(s, cells, out));
    }
    ProofTable *table = s->table;
    if (reserve((void **)&table->move_pool, &table->moves_capacity, table->moves_used,
                (size_t)count, 1) < 0) {
        s->stop = STOP_MEMORY;
        return -1;
    }
    const uint8_t *forward = t->perms[symmetry];
    uint8_t *stored = table->move_pool + table->moves_used;
    for (int i = 0; i < count; i++) stored[i] = forward[out[i]];
    entry = entry_at(s, number);
    entry->moves = (int64_t)table->moves_used;
    entry->count = (uint8_t)count;
    table->moves_used += (size_t)count;
    return count;
}

/* -- the search ------------------------------------------------------------------------ */
static inline int64_t widen(int64_t second) {
    return second >= INFINITY_PN ? INFINITY_PN : second + second / 4 + 1;
}


/* Search the board's position until its proof number reaches th_pn or its disproof
 * number th_dn (or it is settled), updating its entry (number) in place. */
static void mid(ProofSearch *s, int64_t th_pn, int64_t th_dn, int64_t number) {
    Entry *entry = entry_at(s, number);
    if (entry->pn >= th_pn || entry->dn >= th_dn || !entry->pn || !entry->dn) return;
    s->nodes++;
    if (check(s)) return;
    int is_attacking = attacking(s), symmetry;
    board_key(s, &symmetry);
    const uint8_t *to_key = s->tables->perms[symmetry];
    int cells[MAX_CELLS];
    int64_t children[MAX_CELLS];
    int count = moves(s, number, symmetry, cells);
    if (count < 0) return;
    int nchildren = 0;
    entry = entry_at(s, number);
    if (entry->keys != NONE) {
        const uint64_t *keys = s->table->key_pool + entry->keys;
        for (int i = 0; i < count; i++) {
            children[i] = table_get(s->table, keys[i]);
            if (children[i] < 0) {
                s->stop = STOP_LOST;
                return;
            }
        }
        nchildren = count;
    } else {
        uint64_t keys[MAX_CELLS];
        int settled = 0;
        for (int i = 0; i < count; i++) {
            board_play(s, cells[i]);
            uint64_t key = board_key(s, NULL);
            int64_t child = entry_of(s, key);
            board_undo(s, cells[i]);
            if (child < 0) return;
            children[nchildren++] = child;
            keys[i] = key;
            Entry *found = entry_at(s, child);
            if ((is_attacking && !found->pn) || (!is_attacking && !found->dn)) {
                settled = 1; /* the node is not searched again */
                break;
            }
        }
        if (!settled) {
            ProofTable *table = s->table;
            if (reserve((void **)&table->key_pool, &table->keys_capacity, table->keys_used,
                        (size_t)count, sizeof(uint64_t)) < 0) {
                s->stop = STOP_MEMORY;
                return;
            }
            memcpy(table->key_pool + table->keys_used, keys, (size_t)count * sizeof(uint64_t));
            entry_at(s, number)->keys = (int64_t)table->keys_used;
            table->keys_used += (size_t)count;
        }
    }
    for (;;) {
        /* an attacker node is an OR node: proven by one child, disproven by all */
        /* the mover's number is its children's least (the first least is the best, the
         * next least the second), the other number their sum */
        int64_t least = INFINITY_PN, sum = 0, second = INFINITY_PN;
        int best = 0;
        for (int i = 0; i < nchildren; i++) {
            const Entry *child = entry_at(s, children[i]);
            int64_t value = is_attacking ? child->pn : child->dn;
            sum += is_attacking ? child->dn : child->pn;
            if (value < least) {
                second = least;
                least = value;
                best = i;
            } else if (value < second) {
                second = value;
            }
        }
        int64_t pn = is_attacking ? least : sum, dn = is_attacking ? sum : least;
        if (pn > INFINITY_PN) pn = INFINITY_PN;
        if (dn > INFINITY_PN) dn = INFINITY_PN;
        entry = entry_at(s, number);
        entry->pn = pn;
        entry->dn = dn;
        if (nchildren) entry->move = to_key[cells[best]];
        if (pn >= th_pn || dn >= th_dn || !pn || !dn) return;
        const Entry *child = entry_at(s, children[best]);
        int64_t child_pn, child_dn;
        if (is_attacking) {
            child_pn = widen(second) < th_pn ? widen(second) : th_pn;
            child_dn = th_dn >= INFINITY_PN ? th_dn : th_dn - dn + child->dn;
        } else {
            child_dn = widen(second) < th_dn ? widen(second) : th_dn;
            child_pn = th_pn >= INFINITY_PN ? th_pn : th_pn - pn + child->pn;
        }
        board_play(s, cells[best]);
        mid(s, child_pn, child_dn, children[best]);
        board_undo(s, cells[best]);
        if (s->stop) return;
    }
}

/* -- reading the table ------------------------------------------------------------------- */
static void not_proven(ProofSearch *s) { s->stop = STOP_UNPROVEN; }

/* The most plies the proven strategy lets the game last from the board's position
 * (memo: keys -> plies); -1 when the search stops. */
static int64_t plies(ProofSearch *s, Map *memo) {
    int symmetry;
    uint64_t key = board_key(s, &symmetry);
    const int64_t *known = map_get(memo, (word_t)key);
    if (known != NULL) return *known;
    int64_t number = entry_of(s, key); /* a reply the rules settled without expanding */
    if (number < 0) return -1;
    int64_t result;
    Entry *entry = entry_at(s, number);
    if (attacking(s)) {
        if (entry->chain) {
            result = entry->chain;
        } else {
            if (entry->move < 0) {
                not_proven(s);
                return -1;
            }
            int move = s->tables->inverse[symmetry][entry->move];
            board_play(s, move);
            int64_t after = plies(s, memo);
            board_undo(s, move);
            if (after < 0) return -1;
            result = 1 + after;
        }
    } else if (entry->chain == 2 && entry->moves == NONE) {
        result = 2; /* any move, then the attacker completes a line */
    } else {
        int cells[MAX_CELLS];
        int count = moves(s, number, symmetry, cells);
        if (count < 0) return -1;
        /* the replies left out lose to the chain the defences were drawn from */
        result = count < popcount(empty_cells(s)) ? 1 + entry_at(s, number)->chain : 0;
        for (int i = 0; i < count; i++) {
            board_play(s, cells[i]);
            int64_t after = plies(s, memo);
            board_undo(s, cells[i]);
            if (after < 0) return -1;
            if (1 + after > result) result = 1 + after;
        }
    }
    if (map_put(memo, (word_t)key, result) < 0) {
        s->stop = STOP_MEMORY;
        return -1;
    }
    return result;
}

/* A proof's walk: (x, o, move, chain, plies) of each attacker position of the strategy,
 * in order, and the keys it met first (to add to the caller's set). */
typedef struct {
    bb_t x, o;
    int move, chain;
    int64_t plies;
} Record;

typedef struct {
    Record *records;
    size_t count, room;
    uint64_t *added;
    size_t nadded, added_room;
} Walked;

/* Walk the proof of the board's position: a record in out for every attacker position
 * of the strategy whose key is not in seen (keys; each met is put there and in out's
 * added). 0, or -1 when the search stops. */
static int walk(ProofSearch *s, Map *seen, Map *memo, Walked *out) {
    int symmetry;
    uint64_t key = board_key(s, &symmetry);
    if (map_get(seen, (word_t)key) != NULL) return 0;
    if (map_put(seen, (word_t)key, 1) < 0 ||
        reserve((void **)&out->added, &out->added_room, out->nadded, 1, sizeof(uint64_t)) < 0)
        goto memory;
    out->added[out->nadded++] = key;
    int64_t number = table_get(s->table, key);
    if (number < 0 || entry_at(s, number)->pn) {
        not_proven(s);
        return -1;
    }
    Entry *entry = entry_at(s, number);
    if (attacking(s)) {
        if (entry->move < 0) {
            not_proven(s);
            return -1;
        }
        int move = s->tables->inverse[symmetry][entry->move];
        int is_chain = entry->chain > 0;
        bb_t x = s->bits[0], o = s->bits[1];
        int64_t length = plies(s, memo);
        if (length < 0) return -1;
        if (reserve((void **)&out->records, &out->room, out->count, 1, sizeof(Record)) < 0)
            goto memory;
        out->records[out->count++] = (Record){x, o, move, is_chain, length};
        if (is_chain) return 0;
        board_play(s, move);
        int result = walk(s, seen, memo, out);
        board_undo(s, move);
        return result;
    }
    if (entry->chain == 2 && entry->moves == NONE) return 0; /* nothing to walk */
    int cells[MAX_CELLS];
    int count = moves(s, number, symmetry, cells);
    if (count < 0) return -1;
    for (int i = 0; i < count; i++) {
        board_play(s, cells[i]);
        int result = walk(s, seen, memo, out);
        board_undo(s, cells[i]);
        if (result < 0) return -1;
    }
    return 0;
memory:
    s->stop = STOP_MEMORY;
    return -1;
}

/* -- Python ----------------------------------------------------------------------------- */
static int same_board(const Tables *a, const Tables *b) {
    return a == b || (a->cells == b->cells && a->k == b->k && a->nlines == b->nlines &&
                      a->nsym == b->nsym && !memcmp(a->lines, b->lines, sizeof(a->lines)) &&
                      !memcmp(a->perms, b->perms, sizeof(a->perms)) &&
                      !memcmp(*a->zobrist, *b->zobrist, sizeof(*a->zobrist) * 2));
}

/* The board of the position (x, o), to_move to move: its keys, the attacker's
 * two-lines, each side's completing cells. -1 out of memory (no Python call). */
static int setup(ProofSearch *s, Tables *t, bb_t x, bb_t o, int to_move) {
    s->tables = t;
    s->cells = t->cells;
    s->k = t->k;
    s->nsym = t->nsym;
    s->nlines = t->nlines;
    s->bits[0] = x;
    s->bits[1] = o;
    s->stm = to_move;
    for (int side = 0; side < 2; side++)
        for (bb_t rest = s->bits[side]; rest; rest &= rest - 1) {
            int cell = lowest(rest);
            for (int sym = 0; sym < s->nsym; sym++) s->hashes[sym] ^= t->zobrist[side][cell][sym];
        }
    s->twos = malloc(((size_t)(MAX_CELLS + 1) * (size_t)t->nlines + 1) * sizeof(bb_t));
    if (s->twos == NULL) return -1;
    bb_t mine = s->bits[s->attacker], theirs = s->bits[1 - s->attacker];
    int n = 0;
    for (int i = 0; i < t->nlines; i++) {
        bb_t line = t->lines[i];
        if (!(line & theirs) && popcount(line & mine) == t->k - 2) s->twos[n++] = line;
    }
    s->twos_count[0] = n;
    s->wins[0] = completions(s, 0);
    s->wins[1] = completions(s, 1);
    return threats_init(&s->threats, t);
}

/* ProofSearch(tables, x, o, to_move, attacker, table, leaf_threat_nodes, max_threats) */
static PyObject *search_new(PyTypeObject *type, PyObject *args, PyObject *kwargs) {
    PyObject *tables, *x_obj, *o_obj, *table;
    int to_move, attacker, leaf_threat_nodes, max_threats;
    if (!parse_new(args, kwargs, "ProofSearch", "O!OOiiO!ii", TablesType, &tables, &x_obj,
                   &o_obj, &to_move, &attacker, ProofTableType, &table, &leaf_threat_nodes,
                   &max_threats))
        return NULL;
    const Tables *t = (const Tables *)tables;
    ProofTable *shared = (ProofTable *)table;
    const char *wrong =
        attacker < 0 || attacker > 1 ? "the attacker is a side: 0 (X) or 1 (O)"
        : leaf_threat_nodes < 0 || max_threats < 0
            ? "leaf_threat_nodes and max_threats are at least 0"
        : shared->tables != NULL && !same_board(shared->tables, t)
            ? "the proof table serves searches of another board"
            : NULL;
    if (wrong != NULL) return PyErr_Format(PyExc_ValueError, "%s", wrong);
    bb_t x, o;
    if (read_position(x_obj, o_obj, &to_move, t->full, &x, &o) < 0) return NULL;
    ProofSearch *s = object_new(type);
    if (s == NULL) return NULL;
    Py_INCREF(tables);
    Py_INCREF(table);
    s->table = shared;
    if (shared->tables == NULL) {
        Py_INCREF(tables);
        shared->tables = (Tables *)tables;
    }
    s->attacker = attacker;
    s->leaf_threat_nodes = leaf_threat_nodes;
    s->max_threats = max_threats;
    if (setup(s, (Tables *)tables, x, o, to_move) < 0) PyErr_NoMemory();
    return made(s);
}

static void search_dealloc(PyObject *self) {
    ProofSearch *s = (ProofSearch *)self;
    threats_free(&s->threats);
    poll_clear(&s->poll);
    free(s->twos);
    Py_XDECREF((PyObject *)s->table);
    Py_XDECREF((PyObject *)s->tables);
    object_free(self);
}

/* run(limit=None, *, nodes=None, thresholds=(INFINITY, INFINITY)) -> (pn, dn): the
 * search within limit, its node limit counting this search's positions and at most
 * nodes more of them (the reference's limit.limited(...)); without the GIL. */
static PyObject *run_call(PyObject *self, PyObject *args, PyObject *kwargs) {
    static char *keywords[] = {"limit", "nodes", "thresholds", NULL};
    ProofSearch *s = (ProofSearch *)self;
    PyObject *limit = Py_None, *nodes = Py_None;
    long long th_pn = INFINITY_PN, th_dn = INFINITY_PN;
    int64_t more = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|O$O(LL)", keywords, &limit, &nodes,
                                     &th_pn, &th_dn) ||
        (nodes != Py_None && as_count(nodes, &more) < 0) || poll_set(&s->poll, limit) < 0)
        return NULL;
    if (nodes != Py_None) {
        __int128 most = (__int128)s->nodes + more;
        int64_t cap = most > COUNT_EDGE ? COUNT_EDGE : (int64_t)most;
        if (!s->poll.has_nodes || cap < s->poll.node_limit) s->poll.node_limit = cap;
        s->poll.active = s->poll.has_nodes = 1;
    }
    int64_t number;
    Py_BEGIN_ALLOW_THREADS /* (the table is ours: enter locked it) */
    number = entry_of(s, board_key(s, NULL));
    if (number >= 0) mid(s, th_pn, th_dn, number);
    Py_END_ALLOW_THREADS
    if (s->stop > STOP_LIMIT) return stopped(&s->stop);
    s->stop = 0;
    if (number < 0) return Py_BuildValue("(ii)", 1, 1); /* not even the root was looked at */
    const Entry *entry = entry_at(s, number);
    return Py_BuildValue("(LL)", (long long)entry->pn, (long long)entry->dn);
}

static PyObject *best_move_call(PyObject *self, PyObject *unused) {
    (void)unused;
    ProofSearch *s = (ProofSearch *)self;
    int symmetry;
    int64_t number = table_get(s->table, board_key(s, &symmetry));
    if (number < 0 || entry_at(s, number)->move < 0) Py_RETURN_NONE;
    return PyLong_FromLong(s->tables->inverse[symmetry][entry_at(s, number)->move]);
}

/* The searched moves of the position (those whose positions the table holds) into
 * cells, with their proof and disproof numbers; their count. */
static int children(ProofSearch *s, int *cells, int64_t *pn, int64_t *dn) {
    int symmetry, count = 0, found = 0;
    int64_t number = table_get(s->table, board_key(s, &symmetry));
    if (number >= 0 && entry_at(s, number)->moves != NONE)
        count = moves(s, number, symmetry, cells);
    for (int i = 0; i < count; i++) {
        board_play(s, cells[i]);
        int64_t child = table_get(s->table, board_key(s, NULL));
        board_undo(s, cells[i]);
        if (child < 0) continue;
        cells[found] = cells[i];
        pn[found] = entry_at(s, child)->pn;
        dn[found++] = entry_at(s, child)->dn;
    }
    return found;
}

static PyObject *children_call(PyObject *self, PyObject *unused) {
    (void)unused;
    int cells[MAX_CELLS];
    int64_t pn[MAX_CELLS], dn[MAX_CELLS];
    int count = children((ProofSearch *)self, cells, pn, dn);
    PyObject *result = PyList_New(count);
    for (int i = 0; result != NULL && i < count; i++) {
        PyObject *item = Py_BuildValue("(iLL)", cells[i], (long long)pn[i], (long long)dn[i]);
        if (item == NULL) Py_CLEAR(result);
        else PyList_SetItem(result, i, item);
    }
    return result;
}

static PyObject *defence_chain_call(PyObject *self, PyObject *unused) {
    (void)unused;
    ProofSearch *s = (ProofSearch *)self;
    int64_t number = table_get(s->table, board_key(s, NULL));
    return PyLong_FromLong(number < 0 || attacking(s) ? 0 : entry_at(s, number)->chain);
}

static PyObject *moves_call(PyObject *self, PyObject *unused) {
    (void)unused;
    ProofSearch *s = (ProofSearch *)self;
    int symmetry, cells[MAX_CELLS];
    int64_t number = entry_of(s, board_key(s, &symmetry));
    if (number < 0) return stopped(&s->stop);
    int count = moves(s, number, symmetry, cells);
    if (count < 0) return stopped(&s->stop);
    return cells_list(cells, count);
}

static PyObject *plies_call(PyObject *self, PyObject *unused) {
    (void)unused;
    ProofSearch *s = (ProofSearch *)self;
    Map memo;
    poll_clear(&s->poll); /* reading the table: the search's limit is spent */
    if (map_init(&memo, 256) < 0) return PyErr_NoMemory();
    int64_t result = plies(s, &memo);
    map_free(&memo);
    if (result < 0) return stopped(&s->stop);
    return PyLong_FromLongLong(result);
}

/* In a proven loss, the move whose proof lets the game last longest into *best (-1
 * none); 0, or -1 when the search stops. */
static int resisting(ProofSearch *s, int *best) {
    int symmetry, cells[MAX_CELLS], count = -1;
    int64_t number = entry_of(s, board_key(s, &symmetry)), most = 0;
    if (number >= 0) count = moves(s, number, symmetry, cells);
    Map memo; /* shared: the replies' proofs overlap */
    if (count >= 0 && map_init(&memo, 256) < 0) s->stop = STOP_MEMORY;
    if (count < 0 || s->stop) return -1;
    *best = -1;
    for (int i = 0; i < count && !s->stop; i++) {
        board_play(s, cells[i]);
        int64_t size = plies(s, &memo);
        board_undo(s, cells[i]);
        if (size >= 0 && (*best < 0 || size > most)) {
            most = size;
            *best = cells[i];
        }
    }
    map_free(&memo);
    return s->stop ? -1 : 0;
}

static PyObject *resisting_move_call(PyObject *self, PyObject *unused) {
    (void)unused;
    ProofSearch *s = (ProofSearch *)self;
    int best;
    poll_clear(&s->poll); /* reading the table: the search's limit is spent */
    if (resisting(s, &best) < 0) return stopped(&s->stop);
    if (best < 0) Py_RETURN_NONE;
    return PyLong_FromLong(best);
}

/* proof(seen=None): walk's records as tuples; seen (a set of keys) skips the positions
 * it holds and gets those met. */
static PyObject *proof_call(PyObject *self, PyObject *args, PyObject *kwargs) {
    static char *keywords[] = {"seen", NULL};
    ProofSearch *s = (ProofSearch *)self;
    PyObject *seen = Py_None, *item, *iterator = NULL, *list = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|O", keywords, &seen)) return NULL;
    if (seen != Py_None && !PySet_Check(seen))
        return PyErr_Format(PyExc_TypeError, "seen must be a set of keys");
    if (seen != Py_None && (iterator = PyObject_GetIter(seen)) == NULL) return NULL;
    poll_clear(&s->poll); /* reading the table: the search's limit is spent */
    Map known = {0}, memo = {0};
    Walked out = {0};
    int ok = map_init(&known, 256) == 0 && map_init(&memo, 256) == 0;
    while (ok && iterator != NULL && (item = PyIter_Next(iterator)) != NULL) {
        unsigned long long key = PyLong_AsUnsignedLongLong(item);
        Py_DECREF(item);
        if (PyErr_Occurred()) PyErr_Clear(); /* (no key of this table) */
        else ok = map_put(&known, (word_t)key, 1) == 0;
    }
    Py_XDECREF(iterator);
    int result = PyErr_Occurred() ? -1 : ok ? walk(s, &known, &memo, &out) : -1;
    if (!ok) s->stop = STOP_MEMORY;
    for (size_t i = 0; seen != Py_None && i < out.nadded && !PyErr_Occurred(); i++) {
        item = PyLong_FromUnsignedLongLong(out.added[i]);
        if (item != NULL) PySet_Add(seen, item);
        Py_XDECREF(item);
    }
    if (result == 0 && !PyErr_Occurred()) list = PyList_New((Py_ssize_t)out.count);
    for (size_t i = 0; list != NULL && i < out.count; i++) {
        const Record *r = &out.records[i];
        item = Py_BuildValue("(NNiNL)", from_bitboard(r->x), from_bitboard(r->o), r->move,
                             PyBool_FromLong(r->chain), (long long)r->plies);
        if (item == NULL) Py_CLEAR(list);
        else PyList_SetItem(list, (Py_ssize_t)i, item);
    }
    map_free(&known);
    map_free(&memo);
    free(out.records);
    free(out.added);
    if (result < 0 && !PyErr_Occurred()) return stopped(&s->stop);
    s->stop = 0;
    return list;
}

static PyObject *play_call(PyObject *self, PyObject *value) {
    ProofSearch *s = (ProofSearch *)self;
    long cell = PyLong_AsLong(value);
    if (cell == -1 && PyErr_Occurred()) return NULL;
    if (cell < 0 || cell >= s->cells || !(empty_cells(s) & bit_of((int)cell)))
        return PyErr_Format(PyExc_ValueError, "move %ld is not an empty cell", cell);
    board_play(s, (int)cell);
    s->public_plies++;
    Py_RETURN_NONE;
}

static PyObject *undo_call(PyObject *self, PyObject *value) {
    ProofSearch *s = (ProofSearch *)self;
    long cell = PyLong_AsLong(value);
    if (cell == -1 && PyErr_Occurred()) return NULL;
    if (!s->public_plies || s->played[s->ply - 1] != cell) {
        PyErr_Format(PyExc_ValueError, "move %ld is not the last move played", cell);
        return NULL;
    }
    board_undo(s, (int)cell);
    s->public_plies--;
    Py_RETURN_NONE;
}

/* -- one call at a time -------------------------------------------------------------- */
/* A search runs without the GIL, where another thread may run: a second call into the
 * same search, or a clear of its table, meanwhile would pull the board or the entries
 * from under it. They get a clear error instead. Searches sharing a table take turns
 * (its lock). */
static int enter(ProofSearch *s) {
    if (claim(&s->busy, "proof search") < 0) return -1;
    s->table->users++;
    lock_released(s->table->lock);
    return 0;
}

static void leave(ProofSearch *s) {
    PyThread_release_lock(s->table->lock);
    release(&s->busy);
    s->table->users--;
}

/* search_name: name_call between enter and leave (parameters: its own; arguments: the
 * call's) */
#define ONE_AT_A_TIME_OF(name, parameters, arguments)                                \
    static PyObject *search_##name parameters {                                     \
        if (enter((ProofSearch *)self) < 0) return NULL;                            \
        PyObject *result = name##_call arguments;                                   \
        leave((ProofSearch *)self);                                                 \
        return result;                                                              \
    }
#define ONE_AT_A_TIME(name) ONE_AT_A_TIME_OF(name, (PyObject *self, PyObject *arg), (self, arg))
#define ONE_AT_A_TIME_KEYWORDS(name)                                                 \
    ONE_AT_A_TIME_OF(name, (PyObject *self, PyObject *args, PyObject *kwargs), (self, args, kwargs))

ONE_AT_A_TIME_KEYWORDS(run)
ONE_AT_A_TIME_KEYWORDS(proof)
ONE_AT_A_TIME(best_move)
ONE_AT_A_TIME(children)
ONE_AT_A_TIME(defence_chain)
ONE_AT_A_TIME(moves)
ONE_AT_A_TIME(plies)
ONE_AT_A_TIME(resisting_move)
ONE_AT_A_TIME(play)
ONE_AT_A_TIME(undo)

static PyGetSetDef search_getset[] = {
    {"nodes", get_count, set_count, "Positions searched so far.", COUNT_AT(ProofSearch, nodes)},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMemberDef search_members[] = {
    {"table", T_OBJECT, offsetof(ProofSearch, table), READONLY,
     "The table (shared with other searches)."},
    {"attacker", T_INT, offsetof(ProofSearch, attacker), READONLY,
     "The side whose win is proven: 0 X, 1 O."},
    {NULL, 0, 0, 0, NULL},
};

static PyMethodDef search_methods[] = {
    {"run", (PyCFunction)(void (*)(void))search_run, METH_VARARGS | METH_KEYWORDS,
     "run(limit=None, *, nodes=None, thresholds=(INFINITY, INFINITY)) -> (pn, dn)."},
    {"play", search_play, METH_O, "play(cell): the side to move takes cell."},
    {"undo", search_undo, METH_O, "undo(cell): take back the last move played."},
    {"moves", search_moves, METH_NOARGS, "The moves worth searching for the side to move."},
    {"best_move", search_best_move, METH_NOARGS, "The move the table holds, or None."},
    {"children", search_children, METH_NOARGS, "(move, pn, dn) of each searched move."},
    {"defence_chain", search_defence_chain, METH_NOARGS,
     "The plies of the chain the replies left out lose to."},
    {"proof", (PyCFunction)(void (*)(void))search_proof, METH_VARARGS | METH_KEYWORDS,
     "proof(seen=None): (x, o, move, chain, plies) of each attacker position."},
    {"plies", search_plies, METH_NOARGS, "The most plies the proven strategy lets it last."},
    {"resisting_move", search_resisting_move, METH_NOARGS,
     "In a proven loss, the move whose proof lets the game last longest."},
    {NULL, NULL, 0, NULL},
};

const Kind proof_table_kind = {
    .name = "noughts.search._core.ProofTable", .size = sizeof(ProofTable),
    .doc = "A proof search's table, compiled: shared between searches of one attacker on "
           "one board.",
    .make = table_new, .dealloc = table_dealloc, .methods = table_methods,
    .length = table_length,
    .type = &ProofTableType};

const Kind proof_search_kind = {
    .name = "noughts.search._core.ProofSearch", .size = sizeof(ProofSearch),
    .doc = "The proof-number search (df-pn), compiled.", .make = search_new,
    .dealloc = search_dealloc, .methods = search_methods, .members = search_members,
    .getset = search_getset,
    .type = &ProofSearchType};
