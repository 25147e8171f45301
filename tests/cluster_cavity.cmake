# Cavity-queue theory of the cluster model: kernels/cluster/cavity.[ch] against closed forms
# (M/M/1, M/D/1, Pollaczek-Khinchine), blocks-law identities and fixed-seed Monte Carlo.
storq_unit_test(test_cluster_cavity test_cluster_cavity.c)
target_include_directories(test_cluster_cavity PRIVATE ${CMAKE_SOURCE_DIR}/kernels)
set_tests_properties(test_cluster_cavity PROPERTIES TIMEOUT 100 LABELS "cluster;unit")
# The two regimes of delay against k (kernels/cluster/regimes.c): the cavity tail against M/M/1
# and the numerical solver, the asymptotes against the product form.
storq_unit_test(test_cluster_regimes test_cluster_regimes.c)
target_include_directories(test_cluster_regimes PRIVATE ${CMAKE_SOURCE_DIR}/kernels)
set_tests_properties(test_cluster_regimes PROPERTIES TIMEOUT 100 LABELS "cluster;unit")
# The product form's cost bound: the mean as base + wait (wait shared by k and k + m), the budget
# of the _w functions, and the blocks law's caps (kernels/cluster/product_form.c, cavity.c).
storq_unit_test(test_cluster_pf_budget test_cluster_pf_budget.c)
target_include_directories(test_cluster_pf_budget PRIVATE ${CMAKE_SOURCE_DIR}/kernels)
set_tests_properties(test_cluster_pf_budget PROPERTIES TIMEOUT 60 LABELS "cluster;unit")
