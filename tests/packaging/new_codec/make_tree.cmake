# Makes the test tree of packaging.new_codec: a copy of include/ with filters/xor.hpp added and
# one line (its include beside it) in filters/table.hpp.
#   cmake -DSOURCE=<include> -DCODEC=<xor.hpp> -DTREE=<folder> -P make_tree.cmake
file(REMOVE_RECURSE "${TREE}")
file(COPY "${SOURCE}/chunkwise" DESTINATION "${TREE}")
set(filters "${TREE}/chunkwise/detail/hdf5/filters")
file(COPY "${CODEC}" DESTINATION "${filters}")
file(READ "${filters}/table.hpp" table)
string(REPLACE "#include <chunkwise/detail/hdf5/filters/zstd.hpp>\n"
               "#include <chunkwise/detail/hdf5/filters/zstd.hpp>\n#include <chunkwise/detail/hdf5/filters/xor.hpp>\n"
               table "${table}")
string(REPLACE "        &blosc2_codec,      // 32026\n" "        &blosc2_codec,      // 32026\n        &xor_codec,\n"
               table "${table}")
if(NOT table MATCHES "&xor_codec,")
  message(FATAL_ERROR "filters/table.hpp no longer has the line the new codec goes after")
endif()
file(WRITE "${filters}/table.hpp" "${table}")
file(WRITE "${TREE}/stamp" "")
