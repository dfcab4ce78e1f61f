/* The compiled batched step of noughts.rl (the module noughts.rl._step).
 *
 * The batched environment's state lives in NumPy arrays the Python class owns (a board
 * of int8 cells, 1 for X, -1 for O, 0 empty, one row a board; the plies, the agent's
 * steps, the agent's side, the base-3 table index, the finished flags, the episode
 * counts). A Batch holds buffer views of them and the board's lines; a step reads the
 * actions and writes the rewards, ends, info arrays and observations into buffers the
 * caller allocates, with no per-board Python. Random numbers come from the environment's
 * own NumPy generator (its bit generator's capsule), drawn in the order the NumPy
 * reference draws them, so both give the same games for the same seed and actions.
 *
 * Built against the CPython stable ABI (Py_LIMITED_API 3.11), like the search core, and
 * independent of it.
 */
#ifndef NOUGHTS_RL_STEP_H
#define NOUGHTS_RL_STEP_H

#define Py_LIMITED_API 0x030B0000
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>

#define STEP_MAX_CELLS 64
#define TABLE_MAX_CELLS 16
#define WIN 100
#define NO_MOVE (-128)

/* NumPy's bitgen_t (numpy/random/bitgen.h), reached through a bit generator's
 * "BitGenerator" capsule. */
typedef struct {
    void *state;
    uint64_t (*next_uint64)(void *st);
    uint32_t (*next_uint32)(void *st);
    double (*next_double)(void *st);
    uint64_t (*next_raw)(void *st);
} bitgen_t;

/* A board's lines: nlines rows of k cells; through[cell] the lines through a cell. */
typedef struct {
    int cells, k, nlines, widest;
    uint8_t *lines;     /* nlines * k cells */
    uint16_t *through;  /* cells * widest line numbers */
    uint8_t *nthrough;  /* cells counts */
} Lines;

int lines_read(PyObject *cells_of_lines, int cells, int k, Lines *out);
void lines_free(Lines *lines);
int lines_win(const Lines *lines, const int8_t *row, int cell, int8_t mark);

PyObject *table_build(PyObject *self, PyObject *args);

#endif
