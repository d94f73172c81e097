# Fails when a header or source of the dialect includes the runtime: the
# dialect depends on MLIR and shardc/Common only (docs/architecture.md).
# Run as: cmake -DROOT=<source dir> -P CheckLayering.cmake
file(GLOB_RECURSE files
  ${ROOT}/include/shardc/Dialect/*.h ${ROOT}/include/shardc/Dialect/*.td
  ${ROOT}/include/shardc/Dialect/*.def ${ROOT}/lib/Dialect/*.h ${ROOT}/lib/Dialect/*.cpp
  ${ROOT}/lib/Dialect/*.td ${ROOT}/lib/Dialect/*.def)
set(found "")
foreach(file ${files})
  file(STRINGS ${file} lines REGEX "#include[ \t]*[\"<]shardc/Runtime/")
  foreach(line ${lines})
    file(RELATIVE_PATH rel ${ROOT} ${file})
    string(APPEND found "\n  ${rel}: ${line}")
  endforeach()
endforeach()
if(found)
  message(FATAL_ERROR "the dialect includes the runtime (move what it needs to "
                      "include/shardc/Common, or the code to lib/Conversion):${found}")
endif()
list(LENGTH files n)
message(STATUS "${n} files of the dialect, none includes the runtime")
