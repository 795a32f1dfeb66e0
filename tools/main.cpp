// The trapeze command line.
#include <cstdio>

int main() {
  std::puts("trapeze");
  return 0;
}
