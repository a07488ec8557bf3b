// Allocator for large routing tables (the T3E source table is one byte per
// pair of routers: 1 GiB at 32x32x32).
//  - resize() leaves new elements default-initialised (not zeroed), so the
//    threads that program the table touch its pages first, in parallel,
//    instead of one memset before them;
//  - blocks of 2 MiB and more are 2 MiB-aligned and advised as transparent
//    huge pages: 512 times fewer page faults while programming, and fewer
//    TLB misses for lookups spread over the whole table.
// Used at start-up only; lookups are plain vector indexing.
#pragma once
#include <sys/mman.h>

#include <cstddef>
#include <cstdlib>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

namespace fabemu {

template <class T>
class TableAllocator {
 public:
  using value_type = T;
  static constexpr size_t kHugePage = size_t{2} << 20;

  TableAllocator() noexcept = default;
  template <class U>
  TableAllocator(const TableAllocator<U>&) noexcept {}

  T* allocate(size_t n) {
    const size_t bytes = n * sizeof(T);
    if (bytes < kHugePage) return std::allocator<T>().allocate(n);
    const size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
    void* p = std::aligned_alloc(kHugePage, rounded);
    if (!p) throw std::bad_alloc();
    madvise(p, rounded, MADV_HUGEPAGE);  // advice only: fine if refused
    return static_cast<T*>(p);
  }
  void deallocate(T* p, size_t n) noexcept {
    if (n * sizeof(T) < kHugePage)
      std::allocator<T>().deallocate(p, n);
    else
      std::free(p);
  }

  // Value-initialisation (resize, vector(n)) default-initialises.
  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }

  template <class U>
  bool operator==(const TableAllocator<U>&) const noexcept {
    return true;
  }
};

}  // namespace fabemu
