# The report's front end: web/ is bundled with npm + esbuild at build time and embedded into the
# binary (target cprof_web_bundle), so the installed tool needs no npm at run time. Without node
# and npm (or with -DCPROF_WEB=OFF) the bundle is empty and `visualize` says how to get it.

option(CPROF_WEB "Bundle the HTML report's front end (needs node and npm)" ON)
find_program(CPROF_NODE node)
find_program(CPROF_NPM npm)

set(CPROF_WEB_SRC ${CMAKE_SOURCE_DIR}/web)
set(CPROF_WEB_OUT ${CMAKE_BINARY_DIR}/web)
set(_cprof_web_cc ${CMAKE_BINARY_DIR}/generated/report/web_bundle.cc)

if(CPROF_WEB AND CPROF_NODE AND CPROF_NPM)
  set(CPROF_WEB_AVAILABLE ON)
  file(GLOB_RECURSE _cprof_web_inputs CONFIGURE_DEPENDS ${CPROF_WEB_SRC}/src/*.ts ${CPROF_WEB_SRC}/src/*.css)
  add_custom_command(
    OUTPUT ${CPROF_WEB_OUT}/npm.stamp
    COMMAND ${CMAKE_SOURCE_DIR}/scripts/web_deps.sh ${CPROF_WEB_SRC} ${CPROF_WEB_OUT}/npm.stamp
    DEPENDS ${CPROF_WEB_SRC}/package.json ${CPROF_WEB_SRC}/package-lock.json
    COMMENT "npm ci in web/"
    VERBATIM)
  add_custom_command(
    OUTPUT ${CPROF_WEB_OUT}/app.js ${CPROF_WEB_OUT}/app.css
    COMMAND ${CPROF_NODE} ${CPROF_WEB_SRC}/build.mjs --outdir ${CPROF_WEB_OUT}
    DEPENDS ${_cprof_web_inputs} ${CPROF_WEB_SRC}/build.mjs ${CPROF_WEB_SRC}/tsconfig.json ${CPROF_WEB_OUT}/npm.stamp
    COMMENT "Bundling the report front end (web/)"
    VERBATIM)
  add_custom_command(
    OUTPUT ${_cprof_web_cc}
    COMMAND ${CMAKE_COMMAND} -DJS=${CPROF_WEB_OUT}/app.js -DCSS=${CPROF_WEB_OUT}/app.css -DOUT=${_cprof_web_cc}
            -P ${CMAKE_SOURCE_DIR}/cmake/embed_web_bundle.cmake
    DEPENDS ${CPROF_WEB_OUT}/app.js ${CPROF_WEB_OUT}/app.css ${CMAKE_SOURCE_DIR}/cmake/embed_web_bundle.cmake
    COMMENT "Embedding the report front end"
    VERBATIM)
  # Type-checks the front end (esbuild strips types without checking them).
  add_custom_target(web_typecheck
    COMMAND ${CPROF_NODE} ${CPROF_WEB_SRC}/node_modules/typescript/bin/tsc --noEmit -p ${CPROF_WEB_SRC}
    DEPENDS ${CPROF_WEB_OUT}/npm.stamp
    VERBATIM)
else()
  set(CPROF_WEB_AVAILABLE OFF)
  message(STATUS "node/npm not found or CPROF_WEB=OFF: `visualize` will be built without its front end")
  add_custom_command(
    OUTPUT ${_cprof_web_cc}
    COMMAND ${CMAKE_COMMAND} -DOUT=${_cprof_web_cc} -P ${CMAKE_SOURCE_DIR}/cmake/embed_web_bundle.cmake
    DEPENDS ${CMAKE_SOURCE_DIR}/cmake/embed_web_bundle.cmake
    VERBATIM)
endif()

add_library(cprof_web_bundle STATIC ${_cprof_web_cc})
target_include_directories(cprof_web_bundle PUBLIC ${CMAKE_SOURCE_DIR}/src)
