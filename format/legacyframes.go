package format

import "strings"

// pprof gives every legacy profile it reads (text or binary) a built-in
// drop_frames and keep_frames, chosen by its sample types alone, and
// prunes with them after symbolization: heap profiles lose the
// allocator's frames (malloc, tcmalloc, Go's runtime), contention
// profiles the lock functions, everything else the CPU profiler's own
// signal frames. Without them a Go ?debug=1 heap profile's leaves are
// runtime.mallocgc instead of the allocating function.

// legacyHeapTypes are the sample type lists pprof takes for a heap
// profile, in order, by type name.
var legacyHeapTypes = [][]string{
	{"allocations", "size"},
	{"objects", "space"},
	{"inuse_objects", "inuse_space"},
	{"alloc_objects", "alloc_space"},
	{"alloc_objects", "alloc_space", "inuse_objects", "inuse_space"},
}

var legacyContentionTypes = [][]string{{"contentions", "delay"}}

// allocatorFrames are the memory allocators' entry points and helpers.
var allocatorFrames = strings.Join([]string{
	// libc
	`calloc`, `cfree`, `malloc`, `free`, `memalign`, `do_memalign`,
	`(__)?posix_memalign`, `pvalloc`, `valloc`, `realloc`,
	// tcmalloc
	`tcmalloc::.*`, `tc_calloc`, `tc_cfree`, `tc_malloc`, `tc_free`,
	`tc_memalign`, `tc_posix_memalign`, `tc_pvalloc`, `tc_valloc`,
	`tc_realloc`, `tc_new`, `tc_delete`, `tc_newarray`, `tc_deletearray`,
	`tc_new_nothrow`, `tc_newarray_nothrow`,
	// macOS malloc zones
	`malloc_zone_malloc`, `malloc_zone_calloc`, `malloc_zone_valloc`,
	`malloc_zone_realloc`, `malloc_zone_memalign`, `malloc_zone_free`,
	// Go
	`runtime\..*`,
	// others
	`BaseArena::.*`, `(::)?do_malloc_no_errno`, `(::)?do_malloc_pages`,
	`(::)?do_malloc`, `DoSampledAllocation`,
	`MallocedMemBlock::MallocedMemBlock`, `_M_allocate`,
	`__builtin_(vec_)?delete`, `__builtin_(vec_)?new`,
	`__gnu_cxx::new_allocator::allocate`, `__libc_malloc`,
	`__malloc_alloc_template::allocate`, `allocate`, `cpp_alloc`,
	`operator new(\[\])?`, `simple_alloc::allocate`,
}, "|")

// allocatorKeepFrames are Go runtime frames that are not the allocator's
// and so survive allocatorFrames in the middle of a stack.
var allocatorKeepFrames = strings.Join([]string{
	`runtime\.panic`, `runtime\.reflectcall`, `runtime\.call[0-9]*`,
}, "|")

// lockFrames are the lock implementations' own functions.
var lockFrames = strings.Join([]string{
	`RecordLockProfileData`,
	`(base::)?RecordLockProfileData.*`,
	`(base::)?SubmitMutexProfileData.*`,
	`(base::)?SubmitSpinLockProfileData.*`,
	`(base::Mutex::)?AwaitCommon.*`,
	`(base::Mutex::)?Unlock.*`,
	`(base::Mutex::)?UnlockSlow.*`,
	`(base::Mutex::)?ReaderUnlock.*`,
	`(base::MutexLock::)?~MutexLock.*`,
	`(Mutex::)?AwaitCommon.*`,
	`(Mutex::)?Unlock.*`,
	`(Mutex::)?UnlockSlow.*`,
	`(Mutex::)?ReaderUnlock.*`,
	`(MutexLock::)?~MutexLock.*`,
	`(SpinLock::)?Unlock.*`,
	`(SpinLock::)?SlowUnlock.*`,
	`(SpinLockHolder::)?~SpinLockHolder.*`,
}, "|")

// legacyFrameInfo returns the drop_frames and keep_frames pprof gives a
// legacy profile with these sample types.
func legacyFrameInfo(types []ValueType) (drop, keep string) {
	switch {
	case sampleTypesAre(types, legacyHeapTypes):
		return allocatorFrames, allocatorKeepFrames
	case sampleTypesAre(types, legacyContentionTypes):
		return lockFrames, ""
	}
	return cpuProfilerFrames, ""
}

// sampleTypesAre reports whether the type names of types equal one of
// the lists.
func sampleTypesAre(types []ValueType, lists [][]string) bool {
next:
	for _, l := range lists {
		if len(l) != len(types) {
			continue
		}
		for i, t := range types {
			if t.Type != l[i] {
				continue next
			}
		}
		return true
	}
	return false
}
