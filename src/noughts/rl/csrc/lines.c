/* A board's lines for the compiled step and the table walk (see step.h): read from
 * k cell numbers a line, indexed by the lines through each cell. */
#include "step.h"

#include <stdlib.h>
#include <string.h>

int lines_read(PyObject *cells_of_lines, int cells, int k, Lines *out) {
    memset(out, 0, sizeof *out);
    Py_buffer view;
    if (PyObject_GetBuffer(cells_of_lines, &view, PyBUF_SIMPLE) < 0) return -1;
    int status = -1;
    if (cells < 1 || cells > STEP_MAX_CELLS || k < 1 || k > cells || view.len % k != 0 ||
        view.len / k > 65535) {
        PyErr_SetString(PyExc_ValueError, "lines are k cell numbers (uint8) each");
        goto done;
    }
    out->cells = cells;
    out->k = k;
    out->nlines = (int)(view.len / k);
    out->lines = (uint8_t *)malloc((size_t)view.len + 1);
    out->nthrough = (uint8_t *)calloc((size_t)cells, 1);
    if (out->lines == NULL || out->nthrough == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    memcpy(out->lines, view.buf, (size_t)view.len);
    int counts[STEP_MAX_CELLS] = {0};
    for (Py_ssize_t at = 0; at < view.len; at++) {
        if (out->lines[at] >= cells) {
            PyErr_SetString(PyExc_ValueError, "a line names a cell off the board");
            goto done;
        }
        counts[out->lines[at]]++;
    }
    int widest = 1;
    for (int cell = 0; cell < cells; cell++) {
        if (counts[cell] > 255) {
            PyErr_SetString(PyExc_ValueError, "more than 255 lines through a cell");
            goto done;
        }
        if (counts[cell] > widest) widest = counts[cell];
    }
    out->widest = widest;
    out->through = (uint16_t *)calloc((size_t)cells * (size_t)widest, sizeof(uint16_t));
    if (out->through == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (int line = 0; line < out->nlines; line++) {
        for (int at = 0; at < k; at++) {
            int cell = out->lines[line * k + at];
            out->through[cell * widest + out->nthrough[cell]++] = (uint16_t)line;
        }
    }
    status = 0;
done:
    PyBuffer_Release(&view);
    if (status < 0) lines_free(out);
    return status;
}

void lines_free(Lines *lines) {
    free(lines->lines);
    free(lines->through);
    free(lines->nthrough);
    lines->lines = NULL;
    lines->through = NULL;
    lines->nthrough = NULL;
}

/* Did mark, just played on cell, complete a line through it? */
int lines_win(const Lines *lines, const int8_t *row, int cell, int8_t mark) {
    const uint16_t *through = lines->through + cell * lines->widest;
    int k = lines->k;
    for (int at = 0; at < lines->nthrough[cell]; at++) {
        const uint8_t *line = lines->lines + through[at] * k;
        int all = 1;
        for (int i = 0; i < k; i++) {
            if (row[line[i]] != mark) {
                all = 0;
                break;
            }
        }
        if (all) return 1;
    }
    return 0;
}
