# The list of tests. One line per test binary; keep it grouped by area.

# Harness
corral_c_test(tap test_tap.c)
