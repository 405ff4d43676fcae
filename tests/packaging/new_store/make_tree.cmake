# Makes the test tree of packaging.new_store: a copy of include/ and docs/architecture.md with the
# toy store's folder added (include/chunkwise/npy/) and one row in the components table.
#   cmake -DSOURCE=<source dir> -DSTORE=<new_store/npy> -DTREE=<folder> -P make_tree.cmake
file(REMOVE_RECURSE "${TREE}")
file(COPY "${SOURCE}/include/chunkwise" DESTINATION "${TREE}/include")
file(COPY "${STORE}" DESTINATION "${TREE}/include/chunkwise")
file(COPY "${SOURCE}/docs/architecture.md" DESTINATION "${TREE}/docs")
file(READ "${TREE}/docs/architecture.md" doc)
set(zarr_row_regex "(\n\\| zarr \\| [^\n]*)")
if(NOT doc MATCHES "${zarr_row_regex}")
  message(FATAL_ERROR "docs/architecture.md has no components row for zarr to add the new one after")
endif()
string(REGEX REPLACE "${zarr_row_regex}"
       "\\1\n| npy | npy/array.hpp | npy/ | chunkwise::npy | chunkwise_header_check_npy | chunkwise-npy.pc | +npy | docs/npy.md | tests/npy | nothing |"
       doc "${doc}")
file(WRITE "${TREE}/docs/architecture.md" "${doc}")
file(WRITE "${TREE}/stamp" "")
