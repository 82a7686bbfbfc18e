#ifndef CRATED_CCURL_SHIM_H
#define CRATED_CCURL_SHIM_H
#include <curl/curl.h>

/*
 * Swift cannot call C variadic functions, and curl_easy_setopt / curl_easy_getinfo are variadic.
 * These typed wrappers are the shim: a systemLibrary target cannot hold C sources, so they are
 * static inline functions in the header the module map exports.
 */

static inline CURLcode crated_curl_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode crated_curl_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

/* libcurl copies string options (since 7.17.0), so the Swift string may go after the call. */
static inline CURLcode crated_curl_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

/* Any object pointer: WRITEDATA, HEADERDATA, XFERINFODATA, HTTPHEADER (a curl_slist). */
static inline CURLcode crated_curl_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

/* WRITEFUNCTION and HEADERFUNCTION share this signature. */
static inline CURLcode crated_curl_setopt_write_callback(CURL *handle, CURLoption option, curl_write_callback callback) {
    return curl_easy_setopt(handle, option, callback);
}

static inline CURLcode crated_curl_setopt_xferinfo_callback(CURL *handle, curl_xferinfo_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, callback);
}

static inline CURLcode crated_curl_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode crated_curl_getinfo_off_t(CURL *handle, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(handle, info, value);
}

/* The string stays owned by the handle and is valid until the handle is reset or cleaned up. */
static inline CURLcode crated_curl_getinfo_string(CURL *handle, CURLINFO info, char **value) {
    return curl_easy_getinfo(handle, info, value);
}

#endif
