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

// Runs on a libuv pool thread. malloc_trim is MT-safe: it locks each arena in turn while it
// walks its free chunks, so a thread that allocates meanwhile waits at most for one arena.
static void execute(napi_env env, void* data) {
  (void)env;
  TrimJob* job = (TrimJob*)data;
#if HEAP_TRIM_SUPPORTED
  job->released = malloc_trim(0) == 1;
#else
  job->released = false;
#endif
}

static void complete(napi_env env, napi_status status, void* data) {
  TrimJob* job = (TrimJob*)data;
  napi_value result;
  if (status == napi_ok && napi_get_boolean(env, job->released, &result) == napi_ok) {
    napi_resolve_deferred(env, job->deferred, result);
  } else {
    napi_value message;
    napi_value error;
    napi_create_string_utf8(env, "heap trim did not run", NAPI_AUTO_LENGTH, &message);
    napi_create_error(env, NULL, message, &error);
    napi_reject_deferred(env, job->deferred, error);
  }
  napi_delete_async_work(env, job->work);
  free(job);
}

// trim(): Promise<boolean> (whether pages were released), or null where unsupported.
static napi_value trim(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value result;
  if (!HEAP_TRIM_SUPPORTED) {
    napi_get_null(env, &result);
    return result;
  }
  TrimJob* job = (TrimJob*)calloc(1, sizeof(TrimJob));
  napi_value name;
  if (job == NULL || napi_create_promise(env, &job->deferred, &result) != napi_ok ||
      napi_create_string_utf8(env, "heap_trim", NAPI_AUTO_LENGTH, &name) != napi_ok ||
      napi_create_async_work(env, NULL, name, execute, complete, job, &job->work) != napi_ok ||
      napi_queue_async_work(env, job->work) != napi_ok) {
    free(job);
    napi_throw_error(env, NULL, "heap trim could not be queued");
    return NULL;
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
