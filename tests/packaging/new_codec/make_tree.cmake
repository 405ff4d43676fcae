# Makes the test tree of packaging.new_codec: a copy of include/ with codecs/xor.hpp added and
# one line (its include beside it) in the codec floor's codecs/table.hpp.
#   cmake -DSOURCE=<include> -DCODEC=<xor.hpp> -DTREE=<folder> -P make_tree.cmake
file(REMOVE_RECURSE "${TREE}")
file(COPY "${SOURCE}/chunkwise" DESTINATION "${TREE}")
set(codecs "${TREE}/chunkwise/detail/codecs")
file(COPY "${CODEC}" DESTINATION "${codecs}")
file(READ "${codecs}/table.hpp" table)
string(REPLACE "#include <chunkwise/detail/codecs/zstd.hpp>\n"
               "#include <chunkwise/detail/codecs/zstd.hpp>\n#include <chunkwise/detail/codecs/xor.hpp>\n"
               table "${table}")
string(REGEX REPLACE "(        &crc32c_codec, +// Zarr v3: crc32c\n)" "\\1        &xor_codec,\n" table "${table}")
if(NOT table MATCHES "&xor_codec," OR NOT table MATCHES "codecs/xor.hpp")
  message(FATAL_ERROR "codecs/table.hpp no longer has the lines the new codec goes after")
endif()
file(WRITE "${codecs}/table.hpp" "${table}")
file(WRITE "${TREE}/stamp" "")
