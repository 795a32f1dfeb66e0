// The source the tests' precompiled header is built with (test/CMakeLists.txt):
// it has nothing of its own.
