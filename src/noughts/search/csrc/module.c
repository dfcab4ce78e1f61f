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
    static const Kind *kinds[] = {&tables_kind, &search_kind, &threat_search_kind,
                                  &proof_table_kind, &proof_search_kind, &exact_kind};
    static const struct { const char *name; int value; } limits[] = {
        {"MAX_CELLS", MAX_CELLS}, {"MAX_LINES", MAX_LINES}, {"MAX_K", MAX_K},
        {"MAX_THROUGH", MAX_THROUGH}, {"MAX_SYMMETRIES", MAX_SYMMETRIES},
        {"MAX_KEY_SYMMETRIES", MAX_KEY_SYMMETRIES}};
    PyObject *module = PyModule_Create(&core_module);
    int failed = module == NULL || PyModule_AddFunctions(module, threats_functions) < 0 ||
                 PyModule_AddFunctions(module, check_functions) < 0;
    for (size_t i = 0; !failed && i < sizeof(kinds) / sizeof(*kinds); i++)
        failed = add_type(module, kinds[i]) < 0;
    for (size_t i = 0; !failed && i < sizeof(limits) / sizeof(*limits); i++)
        failed = PyModule_AddIntConstant(module, limits[i].name, limits[i].value) < 0;
    if (failed) Py_CLEAR(module);
    return module;
}
