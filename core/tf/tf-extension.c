/* tf-extension.c — the entry point of the `tensorflow` extension module for a stand-alone
 * CPython (tests run programs under /usr/bin/python3 with it on sys.path). The module itself
 * is tf-module.c's, linked in whole. */
#include "tf-private.h"
