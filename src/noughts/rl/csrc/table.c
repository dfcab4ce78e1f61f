/* The exact table of a small board (noughts.rl.tables), built in C: a depth-first walk
 * from the empty board over every reachable position, each valued once (negamax, the
 * plies to the end kept in the score), where the NumPy reference walks ply by ply. The
 * same scores in the same base-3 indices; unreachable entries are 0. */
#include "step.h"

#include <string.h>

#define UNSEEN (-127) /* no score is -127: a position not reached yet */

typedef struct {
    const Lines *lines;
    int8_t *values;
    int64_t powers[TABLE_MAX_CELLS];
    int8_t row[TABLE_MAX_CELLS];
    int8_t ended;   /* the score of the side to move after a completed line */
    int64_t positions;
} Walk;

/* The score of the unfinished position at index, ply marks down, for its side to move.
 * The children's entries are fetched first, all at once: the walk waits on memory, not
 * on arithmetic, and the table is far larger than the caches. */
static int8_t walk_value(Walk *walk, int64_t index, int ply) {
    const Lines *lines = walk->lines;
    int cells = lines->cells;
    if (ply == cells) return 0;  /* a full board: a draw */
    int8_t mark = (ply & 1) ? -1 : 1;
    int64_t digit = (ply & 1) ? 2 : 1;
    int64_t children[TABLE_MAX_CELLS];
    for (int cell = 0; cell < cells; cell++) {
        children[cell] = index + digit * walk->powers[cell];
        if (walk->row[cell] == 0) __builtin_prefetch(walk->values + children[cell], 1, 0);
    }
    int best = NO_MOVE;
    for (int cell = 0; cell < cells; cell++) {
        if (walk->row[cell] != 0) continue;
        int64_t child = children[cell];
        int after = walk->values[child];
        if (after == UNSEEN) {
            walk->positions++;
            walk->row[cell] = mark;
            if (lines_win(lines, walk->row, cell, mark))
                after = walk->ended;
            else
                after = walk_value(walk, child, ply + 1);
            walk->row[cell] = 0;
            walk->values[child] = (int8_t)after;
        }
        int score = (after > 0) - (after < 0) - after;
        if (score > best) best = score;
    }
    return (int8_t)best;
}

/* build_table(values, cells, k, lines, misere) -> reachable positions: fills values
 * (a writable int8 buffer of 3**cells entries, zeros) with every reachable position's
 * score. */
PyObject *table_build(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer values;
    int cells, k, misere;
    PyObject *cells_of_lines;
    if (!PyArg_ParseTuple(args, "w*iiOp", &values, &cells, &k, &cells_of_lines, &misere))
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
    int64_t size = 1;
    for (int cell = 0; cell < cells; cell++) {
        walk.powers[cell] = size;
        size *= 3;
    }
    if (values.len != (Py_ssize_t)size) {
        PyErr_Format(PyExc_ValueError, "the table has 3**%d entries, not %zd", cells,
                     values.len);
        goto done;
    }
    if (lines_read(cells_of_lines, cells, k, &lines) < 0) goto done;
    walk.lines = &lines;
    walk.values = (int8_t *)values.buf;
    walk.ended = misere ? WIN : -WIN;
    Py_BEGIN_ALLOW_THREADS
    memset(walk.values, UNSEEN, (size_t)size);
    walk.positions = 1;
    walk.values[0] = walk_value(&walk, 0, 0);
    for (int64_t at = 0; at < size; at++) {  /* unreachable entries: 0, as the reference */
        if (walk.values[at] == UNSEEN) walk.values[at] = 0;
    }
    Py_END_ALLOW_THREADS
    answer = PyLong_FromLongLong(walk.positions);
done:
    lines_free(&lines);
    PyBuffer_Release(&values);
    return answer;
}
