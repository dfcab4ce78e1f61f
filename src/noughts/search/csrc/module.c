/* The module noughts.search._core: the compiled searches (see core.h), and the limits
 * of the boards they take (MAX_CELLS, MAX_LINES, MAX_K, MAX_THROUGH, MAX_SYMMETRIES,
 * MAX_KEY_SYMMETRIES). */
#include "core.h"

static PyModuleDef core_module = {
    PyModuleDef_HEAD_INIT,
    "noughts.search._core",
    "The compiled search core: ports of the pure-Python searches, node for node.",
    -1,
    NULL, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__core(void) {
    PyObject *module = PyModule_Create(&core_module);
    if (module == NULL) return NULL;
    if (tables_add_type(module) < 0 || search_add_type(module) < 0 ||
        threats_add_type(module) < 0 || proof_add_types(module) < 0 ||
        exact_add_type(module) < 0 || check_add_functions(module) < 0 ||
        PyModule_AddIntConstant(module, "MAX_CELLS", MAX_CELLS) < 0 ||
        PyModule_AddIntConstant(module, "MAX_LINES", MAX_LINES) < 0 ||
        PyModule_AddIntConstant(module, "MAX_K", MAX_K) < 0 ||
        PyModule_AddIntConstant(module, "MAX_THROUGH", MAX_THROUGH) < 0 ||
        PyModule_AddIntConstant(module, "MAX_SYMMETRIES", MAX_SYMMETRIES) < 0 ||
        PyModule_AddIntConstant(module, "MAX_KEY_SYMMETRIES", MAX_KEY_SYMMETRIES) < 0) {
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
