#ifndef CRATED_CCURL_SHIM_H
#define CRATED_CCURL_SHIM_H
#include <curl/curl.h>
#endif
