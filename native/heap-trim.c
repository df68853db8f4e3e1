// heap_trim: gives the C heap's free pages back to the kernel (glibc's malloc_trim), off the
// event loop. glibc keeps memory that was freed in the middle of its heaps, and past a
// threshold that grows with the largest block ever freed, even at their tops; after thousands
// of threads unload, that is megabytes of resident memory nothing uses
// (src/main/host/heap-trimmer.ts decides when). Other C libraries have no such call: `trim`
// then answers null and does nothing.
#include <node_api.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#if defined(__GLIBC__)
#include <malloc.h>
#define HEAP_TRIM_SUPPORTED 1
#else
#define HEAP_TRIM_SUPPORTED 0
#endif

typedef struct {
  napi_async_work work;
  napi_deferred deferred;
  bool released;
} TrimJob;

// Runs on a libuv pool thread. malloc_trim is MT-safe: it locks one arena at a time while it
// walks its free chunks; a thread that allocates from the arena being trimmed waits for it
// (a few ms for the host's heaps after 10,000 unloads).
static void execute(napi_env env, void* data) {
  (void)env;
  TrimJob* job = (TrimJob*)data;
#if HEAP_TRIM_SUPPORTED
  job->released = malloc_trim(0) == 1;
#else
  job->released = false;
#endif
}

static void reject(napi_env env, napi_deferred deferred, const char* text) {
  napi_value message = NULL;
  napi_value error = NULL;
  if (napi_create_string_utf8(env, text, NAPI_AUTO_LENGTH, &message) == napi_ok && napi_create_error(env, NULL, message, &error) == napi_ok) {
    napi_reject_deferred(env, deferred, error);
  }
}

static void complete(napi_env env, napi_status status, void* data) {
  TrimJob* job = (TrimJob*)data;
  napi_value result = NULL;
  if (status == napi_ok && napi_get_boolean(env, job->released, &result) == napi_ok) {
    napi_resolve_deferred(env, job->deferred, result);
  } else {
    reject(env, job->deferred, "heap trim did not run");
  }
  napi_delete_async_work(env, job->work);
  free(job);
}

// trim(): Promise<boolean> (whether pages were released), or null where unsupported. Throws
// when the work cannot be queued (no memory for it).
static napi_value trim(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value result = NULL;
  if (!HEAP_TRIM_SUPPORTED) {
    napi_get_null(env, &result);
    return result;
  }
  TrimJob* job = (TrimJob*)calloc(1, sizeof(TrimJob));
  if (job == NULL) {
    napi_throw_error(env, NULL, "heap trim could not be queued: out of memory");
    return NULL;
  }
  if (napi_create_promise(env, &job->deferred, &result) != napi_ok) {
    free(job);
    napi_throw_error(env, NULL, "heap trim could not be queued");
    return NULL;
  }
  napi_value name = NULL;
  bool created = napi_create_string_utf8(env, "heap_trim", NAPI_AUTO_LENGTH, &name) == napi_ok &&
                 napi_create_async_work(env, NULL, name, execute, complete, job, &job->work) == napi_ok;
  if (!created || napi_queue_async_work(env, job->work) != napi_ok) {
    if (created) napi_delete_async_work(env, job->work);
    // The promise is settled, not leaked; its caller has it already.
    reject(env, job->deferred, "heap trim could not be queued");
    free(job);
  }
  return result;
}

static napi_value init(napi_env env, napi_value exports) {
  napi_value fn;
  if (napi_create_function(env, "trim", NAPI_AUTO_LENGTH, trim, NULL, &fn) != napi_ok) return NULL;
  if (napi_set_named_property(env, exports, "trim", fn) != napi_ok) return NULL;
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
