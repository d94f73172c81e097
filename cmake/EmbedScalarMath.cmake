# Writes OUT: ScalarMath.h, with OpCodes.def in place of its #include, as
# one C++ string (kScalarMathSource) for the CUDA code generator, whose
# NVRTC programs have no headers. Run with -DINCLUDE=<include dir> -DOUT=...
file(READ ${INCLUDE}/shardc/Runtime/ScalarMath.h math)
file(READ ${INCLUDE}/shardc/Common/OpCodes.def catalogue)
string(REPLACE "#include \"shardc/Common/OpCodes.def\"" "${catalogue}" math "${math}")
string(REPLACE "#include <math.h>" "" math "${math}")
file(WRITE ${OUT}.tmp "// Generated from ScalarMath.h and OpCodes.def; do not edit.\n"
  "static const char kScalarMathSource[] = R\"shardc_source(\n${math})shardc_source\";\n")
file(COPY_FILE ${OUT}.tmp ${OUT} ONLY_IF_DIFFERENT)
file(REMOVE ${OUT}.tmp)
