//! Asking for cache lines a lookup will read soon.

/// Tables at least this large are prefetched: one this size does not stay
/// in cache beside another (the 7-tile table of 7-8, 28 MB, gains; the
/// 6-tile ones of 6-6-3, 2.9 MB, lose).
pub(crate) const PREFETCH_MIN_BYTES: usize = 16 << 20;

/// A move of a tile whose digit has a place value below this lands within a
/// cache line or so of the parent's entry, which is in cache.
pub(crate) const NEAR_ENTRIES: u64 = 128;

/// Asks for the cache line of `bytes[index]`, which a lookup will read
/// soon: a hint, which never faults and changes no result. `safe_arch`
/// wraps the one instruction this needs (the standard library's intrinsic
/// asks for `unsafe` at the call).
#[inline(always)]
pub(crate) fn prefetch_byte(bytes: &[u8], index: usize) {
    if let Some(byte) = bytes.get(index) {
        prefetch(byte);
    }
}

/// Asks for the cache line of `value`.
#[inline(always)]
pub(crate) fn prefetch<T>(value: &T) {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse"))]
    safe_arch::prefetch_t0(value);
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse")))]
    let _ = value;
}
