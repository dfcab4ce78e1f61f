/* The exact table of a small board (noughts.rl.tables), built in C: a depth-first walk
 * from the empty board, each class of symmetric positions valued once (negamax, the
 * plies to the end kept in the score) and written at all its images, where the NumPy
 * reference walks every position ply by ply. The same scores in the same base-3
 * indices; unreachable entries are 0. */
#include "step.h"

#include <string.h>

#define UNSEEN (-127) /* no score is -127: a position not reached yet */
#define MAX_SYMMETRIES 64

typedef struct {
    const Lines *lines;
    int8_t *values;
    int symmetries;
    int64_t image_powers[MAX_SYMMETRIES][TABLE_MAX_CELLS];  /* 3**(the cell's image) */
    int8_t row[TABLE_MAX_CELLS];
    int8_t ended;   /* the score of the side to move after a completed line */
} Walk;

/* A position's score, written at every symmetric image of it (images[s] their indices):
 * a later visit of any image finds it. */
static void walk_store(Walk *walk, const int64_t *images, int8_t value) {
    for (int s = 0; s < walk->symmetries; s++) walk->values[images[s]] = value;
}

/* The score of the unfinished position whose images are at images, ply marks down, for
 * its side to move. The children's entries are fetched first, all at once: the walk
 * waits on memory, not arithmetic (the table is far larger than the caches). */
static int8_t walk_value(Walk *walk, const int64_t *images, int ply) {
    const Lines *lines = walk->lines;
    int cells = lines->cells;
    if (ply == cells) return 0;  /* a full board: a draw */
    int8_t mark = (ply & 1) ? -1 : 1;
    int64_t digit = (ply & 1) ? 2 : 1;
    for (int cell = 0; cell < cells; cell++) {
        if (walk->row[cell] == 0)
            __builtin_prefetch(walk->values + images[0] + digit * walk->image_powers[0][cell]);
    }
    int best = NO_MOVE;
    int64_t child[MAX_SYMMETRIES];
    for (int cell = 0; cell < cells; cell++) {
        if (walk->row[cell] != 0) continue;
        int after = walk->values[images[0] + digit * walk->image_powers[0][cell]];
        if (after == UNSEEN) {
            for (int s = 0; s < walk->symmetries; s++)
                child[s] = images[s] + digit * walk->image_powers[s][cell];
            walk->row[cell] = mark;
            if (lines_win(lines, walk->row, cell, mark))
                after = walk->ended;
            else
                after = walk_value(walk, child, ply + 1);
            walk->row[cell] = 0;
            walk_store(walk, child, (int8_t)after);
        }
        int score = (after > 0) - (after < 0) - after;
        if (score > best) best = score;
    }
    return (int8_t)best;
}

/* build_table(values, cells, k, lines, misere, symmetries) -> reachable positions: fills
 * values (a writable int8 buffer of 3**cells entries) with every reachable position's
 * score; symmetries holds cell permutations that keep the lines, cells bytes each, the
 * identity first (each position is walked once per class of images). */
PyObject *table_build(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer values, perms;
    int cells, k, misere;
    PyObject *cells_of_lines;
    if (!PyArg_ParseTuple(args, "w*iiOpy*", &values, &cells, &k, &cells_of_lines, &misere,
                          &perms))
        return NULL;
    PyObject *answer = NULL;
    Lines lines = {0};
    Walk walk;
    memset(&walk, 0, sizeof walk);
    if (cells < 1 || cells > TABLE_MAX_CELLS) {
        PyErr_Format(PyExc_ValueError, "a table covers 1 to %d cells, not %d", TABLE_MAX_CELLS,
                     cells);
        goto done;
    }
    int64_t size = 1, powers[TABLE_MAX_CELLS];
    for (int cell = 0; cell < cells; cell++) {
        powers[cell] = size;
        size *= 3;
    }
    if (values.len != (Py_ssize_t)size) {
        PyErr_Format(PyExc_ValueError, "the table has 3**%d entries, not %zd", cells,
                     values.len);
        goto done;
    }
    Py_ssize_t count = perms.len / cells;
    if (perms.len % cells != 0 || count < 1 || count > MAX_SYMMETRIES) {
        PyErr_Format(PyExc_ValueError, "1 to %d symmetries of %d cells each", MAX_SYMMETRIES,
                     cells);
        goto done;
    }
    const uint8_t *perm = (const uint8_t *)perms.buf;
    walk.symmetries = (int)count;
    for (int s = 0; s < walk.symmetries; s++) {
        for (int cell = 0; cell < cells; cell++) {
            uint8_t image = perm[s * cells + cell];
            if (image >= cells || (s == 0 && image != cell)) {
                PyErr_SetString(PyExc_ValueError, "symmetries are permutations, identity first");
                goto done;
            }
            walk.image_powers[s][cell] = powers[image];
        }
    }
    if (lines_read(cells_of_lines, cells, k, &lines) < 0) goto done;
    walk.lines = &lines;
    walk.values = (int8_t *)values.buf;
    walk.ended = misere ? WIN : -WIN;
    int64_t positions = 0;
    Py_BEGIN_ALLOW_THREADS
    memset(walk.values, UNSEEN, (size_t)size);
    int64_t empty[MAX_SYMMETRIES] = {0};
    walk.values[0] = walk_value(&walk, empty, 0);
    for (int64_t at = 0; at < size; at++) {  /* unreachable entries: 0, as the reference */
        if (walk.values[at] == UNSEEN)
            walk.values[at] = 0;
        else
            positions++;
    }
    Py_END_ALLOW_THREADS
    answer = PyLong_FromLongLong(positions);
done:
    lines_free(&lines);
    PyBuffer_Release(&values);
    PyBuffer_Release(&perms);
    return answer;
}
