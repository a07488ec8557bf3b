# Writes OUT, a source file defining fabemu_commit(): the commit the build
# was made from (git describe of SRC; "unknown" outside a git checkout), a
# "-dirty" suffix for uncommitted changes. Run at every build; OUT is
# rewritten only when the commit changes, so nothing else rebuilds.
execute_process(COMMAND git -C ${SRC} describe --always --dirty --abbrev=12
                OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE
                RESULT_VARIABLE rc ERROR_QUIET)
if(NOT rc EQUAL 0 OR commit STREQUAL "")
  set(commit "unknown")
endif()
file(WRITE ${OUT}.new
     "// Made by cmake/commit.cmake at build time.\nconst char* fabemu_commit() { return \"${commit}\"; }\n")
file(COPY_FILE ${OUT}.new ${OUT} ONLY_IF_DIFFERENT)
file(REMOVE ${OUT}.new)
