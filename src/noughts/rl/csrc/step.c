/* The module noughts.rl._step: the batched environment's step in C (see step.h). */
#include "step.h"

#include <stdlib.h>
#include <string.h>

enum { OPP_NONE, OPP_RANDOM, OPP_RULES, OPP_EXACT };
enum { SIDE_X, SIDE_O, SIDE_ALTERNATE };
enum { STATE_BOARD, STATE_PLY, STATE_STEPS, STATE_AGENT, STATE_INDEX, STATE_OVER,
       STATE_EPISODES, STATE_TABLE, STATE_VIEWS };

static const char BATCH_NAME[] = "noughts.rl._step.Batch";
static const char BITGEN_NAME[] = "BitGenerator";

/* -- the batch -------------------------------------------------------------------------- */
typedef struct {
    Py_ssize_t boards;
    Lines lines;
    int opponent, side, max_steps;
    double illegal_reward, line_reward;
    uint64_t powers[STEP_MAX_CELLS];
    Py_buffer views[STATE_VIEWS];
    int held[STATE_VIEWS];
    int8_t *board, *agent, *table;
    int16_t *ply;
    int32_t *steps;
    int64_t *index, *episodes;
    uint8_t *over;
    Py_ssize_t table_size;
} Batch;

static void batch_free(Batch *batch) {
    for (int at = 0; at < STATE_VIEWS; at++) {
        if (batch->held[at]) PyBuffer_Release(&batch->views[at]);
    }
    lines_free(&batch->lines);
    free(batch);
}

static void batch_destructor(PyObject *capsule) {
    Batch *batch = (Batch *)PyCapsule_GetPointer(capsule, BATCH_NAME);
    if (batch != NULL) batch_free(batch);
}

/* Hold a writable view of array, of boards * per entries of itemsize bytes. */
static void *batch_hold(Batch *batch, int at, PyObject *array, Py_ssize_t entries,
                        Py_ssize_t itemsize, const char *what) {
    if (PyObject_GetBuffer(array, &batch->views[at], PyBUF_WRITABLE) < 0) return NULL;
    batch->held[at] = 1;
    if (batch->views[at].len != entries * itemsize) {
        PyErr_Format(PyExc_ValueError, "%s: %zd entries of %zd bytes expected", what, entries,
                     itemsize);
        return NULL;
    }
    return batch->views[at].buf;
}

/* batch(board, ply, steps, agent, index, over, episodes, lines, k, opponent, side,
 *       max_steps, illegal_reward, line_reward, table) -> a Batch capsule */
static PyObject *step_batch(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *board, *ply, *steps, *agent, *index, *over, *episodes, *cells_of_lines, *table;
    int k, opponent, side, max_steps;
    double illegal_reward, line_reward;
    if (!PyArg_ParseTuple(args, "OOOOOOOOiiiiddO", &board, &ply, &steps, &agent, &index,
                          &over, &episodes, &cells_of_lines, &k, &opponent, &side, &max_steps,
                          &illegal_reward, &line_reward, &table))
        return NULL;
    Batch *batch = (Batch *)calloc(1, sizeof(Batch));
    if (batch == NULL) return PyErr_NoMemory();
    batch->opponent = opponent;
    batch->side = side;
    batch->max_steps = max_steps;
    batch->illegal_reward = illegal_reward;
    batch->line_reward = line_reward;
    if (opponent < OPP_NONE || opponent > OPP_EXACT || side < SIDE_X ||
        side > SIDE_ALTERNATE || max_steps < 0) {
        PyErr_SetString(PyExc_ValueError, "unknown opponent, side or step limit");
        goto fail;
    }
    Py_buffer view;
    if (PyObject_GetBuffer(ply, &view, PyBUF_SIMPLE) < 0) goto fail;
    batch->boards = view.len / (Py_ssize_t)sizeof(int16_t);
    PyBuffer_Release(&view);
    Py_ssize_t n = batch->boards;
    if (PyObject_GetBuffer(board, &view, PyBUF_SIMPLE) < 0) goto fail;
    Py_ssize_t cells = n > 0 ? view.len / n : 0;
    PyBuffer_Release(&view);
    if (n < 1 || cells < 1 || cells > STEP_MAX_CELLS) {
        PyErr_Format(PyExc_ValueError, "the compiled step serves 1 to %d cells", STEP_MAX_CELLS);
        goto fail;
    }
    if (lines_read(cells_of_lines, (int)cells, k, &batch->lines) < 0) goto fail;
    if (!(batch->board = batch_hold(batch, STATE_BOARD, board, n * cells, 1, "board")) ||
        !(batch->ply = batch_hold(batch, STATE_PLY, ply, n, 2, "ply")) ||
        !(batch->steps = batch_hold(batch, STATE_STEPS, steps, n, 4, "steps")) ||
        !(batch->agent = batch_hold(batch, STATE_AGENT, agent, n, 1, "agent")) ||
        !(batch->index = batch_hold(batch, STATE_INDEX, index, n, 8, "index")) ||
        !(batch->over = batch_hold(batch, STATE_OVER, over, n, 1, "over")) ||
        !(batch->episodes = batch_hold(batch, STATE_EPISODES, episodes, n, 8, "episodes")))
        goto fail;
    uint64_t power = 1;
    for (Py_ssize_t cell = 0; cell < cells; cell++) {
        batch->powers[cell] = power;  /* 3**cell, wrapping past 64 bits as NumPy's int64 */
        power *= 3;
    }
    if (opponent == OPP_EXACT && table == Py_None) {
        PyErr_SetString(PyExc_ValueError, "the exact opponent needs the board's table");
        goto fail;
    }
    if (table != Py_None) {  /* the exact opponent's, and the exact info's */
        if (cells > TABLE_MAX_CELLS) {
            PyErr_SetString(PyExc_ValueError, "tables cover boards of at most 16 cells");
            goto fail;
        }
        Py_ssize_t size = (Py_ssize_t)power;
        if (!(batch->table = batch_hold(batch, STATE_TABLE, table, size, 1, "table"))) goto fail;
        batch->table_size = size;
    }
    PyObject *capsule = PyCapsule_New(batch, BATCH_NAME, batch_destructor);
    if (capsule == NULL) goto fail;
    return capsule;
fail:
    batch_free(batch);
    return NULL;
}

static Batch *batch_of(PyObject *capsule) {
    return (Batch *)PyCapsule_GetPointer(capsule, BATCH_NAME);
}

static bitgen_t *bitgen_of(PyObject *capsule) {
    return (bitgen_t *)PyCapsule_GetPointer(capsule, BITGEN_NAME);
}

/* -- the game --------------------------------------------------------------------------- */
static inline int8_t to_move(const Batch *batch, Py_ssize_t board) {
    return (batch->ply[board] & 1) ? -1 : 1;
}

/* mover marks cell on board: 1 if it completed a line, 2 if the board is full, else 0. */
static int play(Batch *batch, Py_ssize_t board, int cell, int8_t mover) {
    int cells = batch->lines.cells;
    int8_t *row = batch->board + board * cells;
    row[cell] = mover;
    batch->ply[board] += 1;
    uint64_t digit = mover == 1 ? 1 : 2;
    batch->index[board] = (int64_t)((uint64_t)batch->index[board] + digit * batch->powers[cell]);
    if (lines_win(&batch->lines, row, cell, mover)) {
        batch->over[board] = 1;
        return 1;
    }
    if (batch->ply[board] == cells) {
        batch->over[board] = 1;
        return 2;
    }
    return 0;
}

/* Empty cells where mark completes an open line (own k-1, rival 0), as 0/1. */
static void completing(const Batch *batch, const int8_t *row, int8_t mark, uint8_t *out) {
    const Lines *lines = &batch->lines;
    int k = lines->k;
    memset(out, 0, (size_t)lines->cells);
    for (int line = 0; line < lines->nlines; line++) {
        const uint8_t *cell = lines->lines + line * k;
        int own = 0, rival = 0;
        for (int at = 0; at < k; at++) {
            own += row[cell[at]] == mark;
            rival += row[cell[at]] == -mark;
        }
        if (own == k - 1 && rival == 0) {
            for (int at = 0; at < k; at++) {
                if (row[cell[at]] == 0) out[cell[at]] = 1;
            }
        }
    }
}

/* Every cell's exact score for the side to move on board (the table's, as
 * noughts.rl.tables.ExactTable.move_scores gives them; NO_MOVE on an occupied cell);
 * answers the best. */
static int move_scores(const Batch *batch, Py_ssize_t board, int *scores) {
    int cells = batch->lines.cells;
    const int8_t *row = batch->board + board * cells;
    int64_t digit = to_move(batch, board) == 1 ? 1 : 2;
    int best = NO_MOVE;
    for (int cell = 0; cell < cells; cell++) {
        scores[cell] = NO_MOVE;
        if (row[cell] != 0) continue;
        int64_t child = batch->index[board] + digit * (int64_t)batch->powers[cell];
        int after = child >= 0 && child < batch->table_size ? batch->table[child] : 0;
        scores[cell] = (after > 0) - (after < 0) - after;
        if (scores[cell] > best) best = scores[cell];
    }
    return best;
}

/* The opponent's cell on board (its game goes on): the NumPy reference's priorities
 * over the same noise, one double a cell from the generator, the first best cell. */
static int opponent_cell(const Batch *batch, Py_ssize_t board, bitgen_t *rng) {
    int cells = batch->lines.cells;
    const int8_t *row = batch->board + board * cells;
    double priority[STEP_MAX_CELLS];
    for (int cell = 0; cell < cells; cell++) priority[cell] = rng->next_double(rng->state);
    int8_t mover = to_move(batch, board);
    if (batch->opponent == OPP_RULES) {
        uint8_t blocks[STEP_MAX_CELLS], wins[STEP_MAX_CELLS];
        completing(batch, row, (int8_t)-mover, blocks);
        completing(batch, row, mover, wins);
        for (int cell = 0; cell < cells; cell++)
            priority[cell] = priority[cell] + 2.0 * blocks[cell] + 4.0 * wins[cell];
    } else if (batch->opponent == OPP_EXACT) {
        int scores[STEP_MAX_CELLS];
        int best = move_scores(batch, board, scores);
        for (int cell = 0; cell < cells; cell++)
            priority[cell] = priority[cell] + (scores[cell] == best ? 2.0 : 0.0);
    }
    int chosen = -1;
    double top = 0.0;
    for (int cell = 0; cell < cells; cell++) {
        double value = row[cell] == 0 ? priority[cell] : -1.0;
        if (chosen < 0 || value > top) {
            chosen = cell;
            top = value;
        }
    }
    return chosen;
}

/* A new game on board; the opponent opens where the agent is O (its cell in moves). */
static void start_board(Batch *batch, Py_ssize_t board, bitgen_t *rng, int64_t *moves,
                        uint8_t *moved) {
    int cells = batch->lines.cells;
    memset(batch->board + board * cells, 0, (size_t)cells);
    batch->ply[board] = 0;
    batch->steps[board] = 0;
    batch->index[board] = 0;
    batch->over[board] = 0;
    if (batch->side == SIDE_ALTERNATE)
        batch->agent[board] = (batch->episodes[board] % 2 == 0) ? 1 : -1;
    batch->episodes[board] += 1;
    if (batch->opponent != OPP_NONE && batch->agent[board] == -1) {
        int cell = opponent_cell(batch, board, rng);
        moves[board] = cell;
        moved[board] = 1;
        play(batch, board, cell, to_move(batch, board));
    }
}

/* Check that a buffer holds boards entries of itemsize bytes. */
static int sized(const Py_buffer *view, Py_ssize_t boards, Py_ssize_t itemsize,
                 const char *what) {
    if (view->len != boards * itemsize) {
        PyErr_Format(PyExc_ValueError, "%s: %zd entries of %zd bytes expected", what, boards,
                     itemsize);
        return -1;
    }
    return 0;
}

/* start(batch, rows, rng, moves, moved): new games on the boards rows marks (uint8);
 * the opponents' openings into moves (int64) and moved (uint8), other entries kept. */
static PyObject *step_start(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *capsule, *generator;
    Py_buffer rows, moves, moved;
    if (!PyArg_ParseTuple(args, "Oy*Ow*w*", &capsule, &rows, &generator, &moves, &moved))
        return NULL;
    PyObject *answer = NULL;
    Batch *batch = batch_of(capsule);
    bitgen_t *rng = batch ? bitgen_of(generator) : NULL;
    if (rng == NULL) goto done;
    Py_ssize_t n = batch->boards;
    if (sized(&rows, n, 1, "rows") < 0 || sized(&moves, n, 8, "moves") < 0 ||
        sized(&moved, n, 1, "moved") < 0)
        goto done;
    const uint8_t *chosen = (const uint8_t *)rows.buf;
    for (Py_ssize_t board = 0; board < n; board++) {
        if (chosen[board])
            start_board(batch, board, rng, (int64_t *)moves.buf, (uint8_t *)moved.buf);
    }
    answer = Py_NewRef(Py_None);
done:
    PyBuffer_Release(&rows);
    PyBuffer_Release(&moves);
    PyBuffer_Release(&moved);
    return answer;
}

/* Is the observing side to act on board (self-play: always, while the game goes on)? */
static inline int8_t viewer_of(const Batch *batch, Py_ssize_t board) {
    return batch->opponent == OPP_NONE ? to_move(batch, board) : batch->agent[board];
}

static inline int acting(const Batch *batch, Py_ssize_t board) {
    return !batch->over[board] &&
           (batch->opponent == OPP_NONE || to_move(batch, board) == batch->agent[board]);
}

/* Every board's observation into planes (boards x cells x 2: own marks, the rival's)
 * and mask (boards x cells: the legal moves of the side observing, where it is to act). */
static void observe_into(const Batch *batch, int8_t *plane, int8_t *legal) {
    Py_ssize_t n = batch->boards;
    int cells = batch->lines.cells;
    for (Py_ssize_t board = 0; board < n; board++) {
        const int8_t *row = batch->board + board * cells;
        int8_t viewer = viewer_of(batch, board);
        int8_t moving = (int8_t)acting(batch, board);
        int8_t *out = plane + board * cells * 2, *allowed = legal + board * cells;
        for (int cell = 0; cell < cells; cell++) {
            int8_t mark = row[cell];
            out[2 * cell] = mark == viewer;
            out[2 * cell + 1] = mark == -viewer;
            allowed[cell] = (int8_t)(moving & (mark == 0));
        }
    }
}

/* step(batch, actions, rng, next_step, reward, terminated, truncated, moves, moved,
 *      illegal, illegal_at, result, resulted, planes, mask) -> flags: one step of every
 * board, as the NumPy reference's step: (next-step autoreset) new games on the finished
 * boards, then on the others the mover's action and the opponent's answer; then every
 * board's observation. Every output is written. The flags say which info arrays have
 * an entry (1 moves, 2 illegal, 4 result) and 8 that a game ended (or was cut). */
static PyObject *step_step(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *capsule, *generator;
    int next_step;
    Py_buffer actions, reward, terminated, truncated, moves, moved, illegal, illegal_at,
        result, resulted, planes, mask;
    if (!PyArg_ParseTuple(args, "Oy*Opw*w*w*w*w*w*w*w*w*w*w*", &capsule, &actions, &generator,
                          &next_step, &reward, &terminated, &truncated, &moves, &moved,
                          &illegal, &illegal_at, &result, &resulted, &planes, &mask))
        return NULL;
    PyObject *answer = NULL;
    uint8_t *waiting = NULL;
    Batch *batch = batch_of(capsule);
    bitgen_t *rng = batch ? bitgen_of(generator) : NULL;
    if (rng == NULL) goto done;
    Py_ssize_t n = batch->boards;
    if (sized(&actions, n, 8, "actions") < 0 || sized(&reward, n, 8, "reward") < 0 ||
        sized(&terminated, n, 1, "terminated") < 0 || sized(&truncated, n, 1, "truncated") < 0 ||
        sized(&moves, n, 8, "moves") < 0 || sized(&moved, n, 1, "moved") < 0 ||
        sized(&illegal, n, 8, "illegal") < 0 || sized(&illegal_at, n, 1, "illegal_at") < 0 ||
        sized(&result, n, 1, "result") < 0 || sized(&resulted, n, 1, "resulted") < 0 ||
        sized(&planes, n, 2 * batch->lines.cells, "planes") < 0 ||
        sized(&mask, n, batch->lines.cells, "mask") < 0)
        goto done;
    const int64_t *action = (const int64_t *)actions.buf;
    double *rewards = (double *)reward.buf;
    uint8_t *ended = (uint8_t *)terminated.buf, *cut = (uint8_t *)truncated.buf;
    int64_t *move = (int64_t *)moves.buf, *bad = (int64_t *)illegal.buf;
    uint8_t *has_move = (uint8_t *)moved.buf, *has_bad = (uint8_t *)illegal_at.buf;
    int8_t *results = (int8_t *)result.buf;
    uint8_t *has_result = (uint8_t *)resulted.buf;
    for (Py_ssize_t board = 0; board < n; board++) {
        rewards[board] = 0.0;
        move[board] = bad[board] = -1;
        results[board] = 0;
    }
    memset(ended, 0, (size_t)n);
    memset(cut, 0, (size_t)n);
    memset(has_move, 0, (size_t)n);
    memset(has_bad, 0, (size_t)n);
    memset(has_result, 0, (size_t)n);
    waiting = (uint8_t *)malloc((size_t)n);
    if (waiting == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    memcpy(waiting, batch->over, (size_t)n);
    if (next_step) {
        for (Py_ssize_t board = 0; board < n; board++) {
            if (waiting[board]) start_board(batch, board, rng, move, has_move);
        }
    }
    int cells = batch->lines.cells;
    int against = batch->opponent != OPP_NONE;
    long flags = 0;
    for (Py_ssize_t board = 0; board < n; board++) {
        if (waiting[board]) continue;
        int64_t cell = action[board];
        if (cell < 0 || cell >= cells || batch->board[board * cells + cell] != 0) {
            rewards[board] = batch->illegal_reward;
            ended[board] = 1;
            bad[board] = cell;
            has_bad[board] = 1;
        } else {
            int8_t mover = to_move(batch, board);
            int outcome = play(batch, board, (int)cell, mover);
            if (outcome == 1) rewards[board] = batch->line_reward;
            if (outcome != 0) {
                ended[board] = 1;
            } else if (against) {
                int answer_cell = opponent_cell(batch, board, rng);
                move[board] = answer_cell;
                has_move[board] = 1;
                int answered = play(batch, board, answer_cell, to_move(batch, board));
                if (answered == 1) rewards[board] = -batch->line_reward;
                if (answered != 0) ended[board] = 1;
            }
        }
        if (ended[board]) {
            batch->over[board] = 1;
            if (against) {
                double r = rewards[board];
                results[board] = (int8_t)((r > 0) - (r < 0));
                has_result[board] = 1;
            }
        }
        batch->steps[board] += 1;
        if (batch->max_steps > 0 && batch->steps[board] >= batch->max_steps) {
            cut[board] = !ended[board];
            batch->over[board] = 1;
        }
        flags |= (has_move[board] ? 1 : 0) | (has_bad[board] ? 2 : 0) |
                 (has_result[board] ? 4 : 0) | (ended[board] | cut[board] ? 8 : 0);
    }
    for (Py_ssize_t board = 0; board < n && !(flags & 1); board++)
        flags |= has_move[board] ? 1 : 0;  /* the openings of the boards started above */
    observe_into(batch, (int8_t *)planes.buf, (int8_t *)mask.buf);
    answer = PyLong_FromLong(flags);
done:
    free(waiting);
    PyBuffer_Release(&actions);
    PyBuffer_Release(&reward);
    PyBuffer_Release(&terminated);
    PyBuffer_Release(&truncated);
    PyBuffer_Release(&moves);
    PyBuffer_Release(&moved);
    PyBuffer_Release(&illegal);
    PyBuffer_Release(&illegal_at);
    PyBuffer_Release(&result);
    PyBuffer_Release(&resulted);
    PyBuffer_Release(&planes);
    PyBuffer_Release(&mask);
    return answer;
}

/* observe(batch, planes, mask): the observations into planes (int8, boards x cells x 2:
 * own marks, the rival's) and mask (int8, boards x cells: the legal moves of the side
 * observing, where it is to act). */
static PyObject *step_observe(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *capsule;
    Py_buffer planes, mask;
    if (!PyArg_ParseTuple(args, "Ow*w*", &capsule, &planes, &mask)) return NULL;
    PyObject *answer = NULL;
    Batch *batch = batch_of(capsule);
    if (batch == NULL) goto done;
    Py_ssize_t n = batch->boards;
    int cells = batch->lines.cells;
    if (sized(&planes, n, 2 * cells, "planes") < 0 || sized(&mask, n, cells, "mask") < 0)
        goto done;
    observe_into(batch, (int8_t *)planes.buf, (int8_t *)mask.buf);
    answer = Py_NewRef(Py_None);
done:
    PyBuffer_Release(&planes);
    PyBuffer_Release(&mask);
    return answer;
}

/* random_actions(batch, rng, out): a uniformly random legal cell a board (int64), one
 * double a board: the floor(u * legal)-th legal cell; 0 where the side observing has no
 * move. */
static PyObject *step_random_actions(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *capsule, *generator;
    Py_buffer out;
    if (!PyArg_ParseTuple(args, "OOw*", &capsule, &generator, &out)) return NULL;
    PyObject *answer = NULL;
    Batch *batch = batch_of(capsule);
    bitgen_t *rng = batch ? bitgen_of(generator) : NULL;
    if (rng == NULL) goto done;
    Py_ssize_t n = batch->boards;
    int cells = batch->lines.cells;
    if (sized(&out, n, 8, "actions") < 0) goto done;
    int64_t *actions = (int64_t *)out.buf;
    for (Py_ssize_t board = 0; board < n; board++) {
        const int8_t *row = batch->board + board * cells;
        uint8_t empty[STEP_MAX_CELLS + 1];
        int legal = 0;
        if (acting(batch, board)) {
            for (int cell = 0; cell < cells; cell++) {  /* the empty cells, in order */
                empty[legal] = (uint8_t)cell;
                legal += row[cell] == 0;
            }
        }
        double u = rng->next_double(rng->state);
        actions[board] = legal ? empty[(int)(u * (double)legal)] : 0;
    }
    answer = Py_NewRef(Py_None);
done:
    PyBuffer_Release(&out);
    return answer;
}

/* exact_info(batch, exact, outcome, plies, optimal, keeping, values) -> live boards: for
 * every board whose game goes on, its exact value for the side to move (outcome +1/0/-1,
 * plies to the end), the optimal and the result-keeping moves (0/1 a cell) and every
 * cell's score; blanks (0, 0, 0, 0, NO_MOVE) on the others, exact saying which. */
static PyObject *step_exact_info(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *capsule;
    Py_buffer exact, outcome, plies, optimal, keeping, values;
    if (!PyArg_ParseTuple(args, "Ow*w*w*w*w*w*", &capsule, &exact, &outcome, &plies, &optimal,
                          &keeping, &values))
        return NULL;
    PyObject *answer = NULL;
    Batch *batch = batch_of(capsule);
    if (batch == NULL) goto done;
    Py_ssize_t n = batch->boards;
    int cells = batch->lines.cells;
    if (batch->table == NULL) {
        PyErr_SetString(PyExc_ValueError, "this batch holds no exact table");
        goto done;
    }
    if (sized(&exact, n, 1, "exact") < 0 || sized(&outcome, n, 1, "outcome") < 0 ||
        sized(&plies, n, 2, "plies") < 0 || sized(&optimal, n, cells, "optimal") < 0 ||
        sized(&keeping, n, cells, "keeping") < 0 || sized(&values, n, 2 * cells, "values") < 0)
        goto done;
    uint8_t *known = (uint8_t *)exact.buf, *best_moves = (uint8_t *)optimal.buf;
    uint8_t *keeps = (uint8_t *)keeping.buf;
    int8_t *outcomes = (int8_t *)outcome.buf;
    int16_t *to_end = (int16_t *)plies.buf, *scores_out = (int16_t *)values.buf;
    long live = 0;
    for (Py_ssize_t board = 0; board < n; board++) {
        uint8_t *best_row = best_moves + board * cells, *keep_row = keeps + board * cells;
        int16_t *score_row = scores_out + board * cells;
        known[board] = !batch->over[board];
        if (!known[board]) {
            outcomes[board] = 0;
            to_end[board] = 0;
            memset(best_row, 0, (size_t)cells);
            memset(keep_row, 0, (size_t)cells);
            for (int cell = 0; cell < cells; cell++) score_row[cell] = NO_MOVE;
            continue;
        }
        live++;
        int scores[STEP_MAX_CELLS];
        int best = move_scores(batch, board, scores);
        int sign = (best > 0) - (best < 0);
        outcomes[board] = (int8_t)sign;
        to_end[board] = (int16_t)(best == 0 ? cells - batch->ply[board]
                                            : WIN - (best < 0 ? -best : best));
        for (int cell = 0; cell < cells; cell++) {
            int score = scores[cell];
            score_row[cell] = (int16_t)score;
            best_row[cell] = score == best;
            keep_row[cell] = sign > 0 ? score > 0 : score >= sign * WIN;
        }
    }
    answer = PyLong_FromLong(live);
done:
    PyBuffer_Release(&exact);
    PyBuffer_Release(&outcome);
    PyBuffer_Release(&plies);
    PyBuffer_Release(&optimal);
    PyBuffer_Release(&keeping);
    PyBuffer_Release(&values);
    return answer;
}

static PyMethodDef step_methods[] = {
    {"batch", step_batch, METH_VARARGS,
     "batch(board, ply, steps, agent, index, over, episodes, lines, k, opponent, side, "
     "max_steps, illegal_reward, line_reward, table) -> the batch's state, held"},
    {"start", step_start, METH_VARARGS,
     "start(batch, rows, rng, moves, moved): new games on the boards of rows"},
    {"step", step_step, METH_VARARGS,
     "step(batch, actions, rng, next_step, reward, terminated, truncated, moves, moved, "
     "illegal, illegal_at, result, resulted, planes, mask) -> flags: one step of every "
     "board and its observation"},
    {"observe", step_observe, METH_VARARGS,
     "observe(batch, planes, mask): every board's observation"},
    {"random_actions", step_random_actions, METH_VARARGS,
     "random_actions(batch, rng, out): a uniformly random legal cell a board"},
    {"exact_info", step_exact_info, METH_VARARGS,
     "exact_info(batch, exact, outcome, plies, optimal, keeping, values) -> live boards"},
    {"build_table", table_build, METH_VARARGS,
     "build_table(values, cells, k, lines, misere, symmetries) -> reachable positions"},
    {NULL, NULL, 0, NULL},
};

static PyModuleDef step_module = {
    PyModuleDef_HEAD_INIT,
    "noughts.rl._step",
    "The batched environment's step in C: buffers in, buffers out (see noughts.rl.native).",
    -1,
    step_methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__step(void) {
    PyObject *module = PyModule_Create(&step_module);
    if (module == NULL) return NULL;
    if (PyModule_AddIntConstant(module, "MAX_CELLS", STEP_MAX_CELLS) < 0 ||
        PyModule_AddIntConstant(module, "TABLE_MAX_CELLS", TABLE_MAX_CELLS) < 0) {
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
