# The fuzz targets, one list for both builds: the libFuzzer build (tests/fuzz/CMakeLists.txt,
# PERFSWEEP_FUZZ=ON, clang: .ci/fuzz and bench/fuzz-long.sh) and the corpus replay of the ordinary
# test build (tests/fuzz/replay.cmake: the ctest entries "fuzz: NAME replays its corpus").
# Each target is tests/fuzz/fuzz_NAME.cpp with its committed corpus in tests/fuzz/corpus/NAME/.

# name → what it links in the libFuzzer build (libraries joined with +)
set(_fuzz_targets
  history_jsonl perfsweep_fuzz_adapters
  import_csv perfsweep_fuzz_adapters
  benchmark_action perfsweep_fuzz_adapters
  metric_extract perfsweep_core
  event_payload perfsweep_fuzz_adapters
  config perfsweep_cli
  command_template perfsweep_core
  report_input perfsweep_fuzz_adapters+perfsweep_report
  time perfsweep_util
  daily_window perfsweep_fuzz_adapters
  server_text perfsweep_util
  journal perfsweep_core)

set(_fuzz_names "")
list(LENGTH _fuzz_targets _fuzz_n)
math(EXPR _fuzz_last "${_fuzz_n} - 1")
foreach(_i RANGE 0 ${_fuzz_last} 2)
  list(GET _fuzz_targets ${_i} _name)
  list(APPEND _fuzz_names ${_name})
endforeach()
