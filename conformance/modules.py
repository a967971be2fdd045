"""Which of Numba's test modules the conformance runner runs, and why.

Selected: the modules that test what a Numba user writes — the language and library in
compiled code, the decorators, dispatchers' public methods, typed containers, jitclass and
structref, ufunc builders, cfunc, errors and warnings users catch, config. Left out: the
modules that test Numba's own machinery (IR, passes, type inference internals, its LLVM
code generator, NRT internals, pycc, gdb, the test runner itself): kiln has a different
compiler inside, so those would measure nothing a user sees.
"""

# modules that test the public API (all of them: `run.py --all`)
PUBLIC = """
test_api test_array_attr test_array_constants test_array_iterators test_array_manipulation
test_array_methods test_array_reductions test_array_return test_auto_constants
test_blackscholes test_boundscheck test_buffer_protocol test_builtins test_caching
test_casting test_cffi test_cfunc test_chained_assign test_closure test_complex
test_comprehension test_conditions_as_predicates test_config test_ctypes test_deprecations
test_dicts test_dispatcher test_dyn_array test_entrypoints test_enums test_errorhandling
test_exceptions test_extending test_fancy_indexing test_fastmath test_flow_control
test_func_interface test_function_type test_generators test_getitem_on_types test_globals
test_hashing test_heapq test_indexing test_intwidth test_iteration test_jitclasses
test_jitmethod test_linalg test_lists test_literal_dispatch test_locals test_mandelbrot
test_map_filter_reduce test_mathlib test_maxmin test_mixed_tuple_unroller test_multi3
test_nan test_nested_calls test_np_functions test_np_randomgen test_npdatetime
test_num_threads test_numberctor test_numbers test_numconv test_object_mode
test_operators test_optional test_parallel_backend test_parfors test_polynomial
test_print test_python_int test_random test_range test_recarray_usecases
test_record_dtype test_recursion test_return_values test_serialize test_sets test_slices
test_sort test_stencils test_storeslice test_struct_ref test_try_except test_tuples
test_typedlist test_typeof test_typingerror test_ufuncs test_unicode test_unicode_array
test_unicode_names test_unpack_sequence test_usecases test_warnings test_withlifting
npyufunc.test_dufunc npyufunc.test_errors npyufunc.test_gufunc npyufunc.test_ufunc
npyufunc.test_ufuncbuilding npyufunc.test_update_inplace npyufunc.test_vectorize_decor
doc_examples.test_examples doc_examples.test_interval_example doc_examples.test_jitclass
doc_examples.test_literal_container_usage doc_examples.test_literally_usage
doc_examples.test_numpy_generators doc_examples.test_parallel_chunksize
doc_examples.test_rec_array doc_examples.test_structref_usage
doc_examples.test_typed_dict_usage doc_examples.test_typed_list_usage
doc_examples.test_typed_set_usage
""".split()

# a bounded subset chosen for breadth (each area of the public API once, modules that run
# in seconds to a minute on Numba): what `run.py` runs by default on a 2-core machine
DEFAULT = """
test_api test_config test_deprecations test_warnings test_typeof test_numberctor
test_numbers test_complex test_mathlib test_tuples test_range test_slices test_iteration
test_unpack_sequence test_closure test_recursion test_generators test_optional
test_exceptions test_try_except test_globals test_enums test_usecases test_return_values
test_map_filter_reduce test_typingerror test_array_attr test_fancy_indexing test_dicts
test_sets test_comprehension test_heapq test_hashing test_literal_dispatch test_jitclasses
test_struct_ref test_cfunc npyufunc.test_vectorize_decor npyufunc.test_gufunc
doc_examples.test_examples
test_builtins test_operators test_lists test_indexing test_maxmin test_nan
test_array_return test_array_constants test_auto_constants test_blackscholes test_mandelbrot
test_chained_assign test_conditions_as_predicates test_flow_control test_intwidth test_locals
test_multi3 test_nested_calls test_storeslice test_print test_numconv test_unicode_names
test_func_interface test_getitem_on_types test_casting test_array_iterators
test_buffer_protocol npyufunc.test_errors test_array_methods test_unicode
doc_examples.test_interval_example doc_examples.test_jitclass
doc_examples.test_literal_container_usage doc_examples.test_literally_usage
doc_examples.test_numpy_generators doc_examples.test_rec_array
doc_examples.test_structref_usage doc_examples.test_typed_dict_usage
doc_examples.test_typed_list_usage doc_examples.test_typed_set_usage
npyufunc.test_dufunc npyufunc.test_ufuncbuilding test_record_dtype
""".split()
# The line from test_builtins to test_nan (issue 32) widens the measure to what users write
# most, whatever kiln's share there: test_builtins (min/max/sum/zip/enumerate, isinstance,
# getattr, ==), test_operators (every operator on mixed numeric types), test_lists
# (reflected lists and their methods), test_indexing (basic indexing and assignment),
# test_maxmin and test_nan (small: min/max of three numbers, NaN tests and comparisons).
# Numba stops test_operators, test_lists and test_indexing at 420 s here; kiln runs each
# whole in under 6 minutes.
# The lines after it (issue 32 too) add the small modules of the language and of plain
# NumPy code (each runs in seconds to a minute on Numba): array returns and constants, control flow, int widths, number
# conversions in signatures, print, casts, array iterators (flat, ndenumerate, nditer), the
# buffer protocol (bytes, bytearray, memoryview, array.array arguments), ufunc errors, and
# every doc example but the parallel chunk size's; 24 of test_flow_control's tests build
# Numba's own CFGraph or bytecode and fail on kiln as Numba internals. And two big ones:
# test_array_methods (Numba stops at 420 s after 22 of its 85 tests; kiln runs it whole in
# 5 to 6 minutes) and test_unicode (Numba stops at 420 s after 111 of its 139 tests; kiln
# runs it whole in 1.5 to 3.5 minutes, as the shared machine allows). The last line: the
# ufunc builders' dynamic ufuncs and methods (Numba stops test_dufunc at 420 s) and record
# dtypes, whose string fields (U and S) kiln's records do not hold yet.

# numba-cuda's modules (under the simulator): numba.cuda.tests.<group>.<module>, those of
# its cudapy, cudadrv, core, cudasim and nocuda groups in which numba-cuda's own simulator
# passes a test (the others skip every test in the simulator: its ufunc builders
# cudapy.test_vectorize*/test_gufunc*, debug info, linking, IPC, streams' driver calls,
# doc_examples...). Left out, as for Numba's suite: the modules testing numba-cuda's own
# compiler internals (its IR, SSA-free byteflow, type inference and conversion rules,
# tracing, gufunc scheduling engine, the Itanium name mangler, the cache-version and
# library-lookup machinery, its NRT and driver bindings).
CUDA_DEFAULT = """
cudapy.test_alignment cudapy.test_array cudapy.test_array_alignment cudapy.test_array_args
cudapy.test_array_methods cudapy.test_atomics cudapy.test_blackscholes cudapy.test_boolean
cudapy.test_casting cudapy.test_complex cudapy.test_complex_kernel cudapy.test_const_string
cudapy.test_constmem cudapy.test_cooperative_groups cudapy.test_cuda_jit_no_types
cudapy.test_datetime cudapy.test_device_func cudapy.test_dispatcher cudapy.test_enums
cudapy.test_errors cudapy.test_exception cudapy.test_forall cudapy.test_freevar
cudapy.test_frexp_ldexp cudapy.test_globals cudapy.test_idiv cudapy.test_intrinsics
cudapy.test_iterators cudapy.test_lang cudapy.test_laplace
cudapy.test_make_function_to_jit_function cudapy.test_math cudapy.test_montecarlo
cudapy.test_nondet cudapy.test_operator cudapy.test_powi cudapy.test_print
cudapy.test_py2_div_issue cudapy.test_random cudapy.test_record_dtype cudapy.test_recursion
cudapy.test_reduction cudapy.test_retrieve_autoconverted_arrays cudapy.test_slicing
cudapy.test_sm cudapy.test_sm_creation cudapy.test_ssa cudapy.test_stream_api cudapy.test_sync
cudapy.test_ufuncs cudapy.test_userexc cudapy.test_vector_type cudapy.test_localmem
cudadrv.test_array_attr cudadrv.test_context_stack cudadrv.test_cuda_array_slicing
cudadrv.test_cuda_auto_context cudadrv.test_cuda_memory cudadrv.test_cuda_ndarray
cudadrv.test_detect cudadrv.test_events cudadrv.test_host_alloc cudadrv.test_is_fp16
cudadrv.test_pinned cudadrv.test_reset_device cudadrv.test_select_device
core.test_serialize cudasim.test_cudasim_issues nocuda.test_import
""".split()
