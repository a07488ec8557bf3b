// Bytes between the processes of a job (sim/rank_link.h): plain values
// appended in order and read back in the same order, in the machine's own
// byte order (every rank of a job runs the same build: control/mpi/
// rank_identity.h). A read past the end fails the reader and returns
// zeros, so that a short message is one check at the end, not a crash.
#pragma once
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

namespace fabemu {

class WireWriter {
 public:
  explicit WireWriter(std::string* out) : out_(out) {}
  template <class T>
  void put(const T& v) {
    static_assert(std::is_trivially_copyable_v<T>, "a plain value: put its fields one by one");
    out_->append(reinterpret_cast<const char*>(&v), sizeof v);
  }
  void put_bytes(const void* p, size_t n) { out_->append(static_cast<const char*>(p), n); }
  void put_string(const std::string& s) {
    put<uint64_t>(s.size());
    out_->append(s);
  }
  template <class T>
  void put_vector(const std::vector<T>& v) {
    put<uint64_t>(v.size());
    if (!v.empty()) put_bytes(v.data(), v.size() * sizeof(T));
  }

 private:
  std::string* out_;
};

class WireReader {
 public:
  WireReader(const char* p, size_t n) : p_(p), n_(n) {}
  explicit WireReader(const std::string& s) : WireReader(s.data(), s.size()) {}
  template <class T>
  void get(T* v) {
    static_assert(std::is_trivially_copyable_v<T>, "a plain value: get its fields one by one");
    get_bytes(v, sizeof(T));
  }
  template <class T>
  T get() {
    T v{};
    get(&v);
    return v;
  }
  void get_bytes(void* p, size_t n) {
    if (!ok_ || n > n_ - at_) {
      ok_ = false;
      std::memset(p, 0, n);
      return;
    }
    std::memcpy(p, p_ + at_, n);
    at_ += n;
  }
  void get_string(std::string* s) {
    const uint64_t n = get<uint64_t>();
    if (!ok_ || n > n_ - at_) {
      ok_ = false;
      s->clear();
      return;
    }
    s->assign(p_ + at_, n);
    at_ += n;
  }
  template <class T>
  void get_vector(std::vector<T>* v) {
    const uint64_t n = get<uint64_t>();
    if (!ok_ || n > (n_ - at_) / sizeof(T)) {
      ok_ = false;
      v->clear();
      return;
    }
    v->resize(n);
    if (n) get_bytes(v->data(), n * sizeof(T));
  }
  void fail() { ok_ = false; }
  bool ok() const { return ok_; }
  bool done() const { return ok_ && at_ == n_; }

 private:
  const char* p_;
  size_t n_;
  size_t at_ = 0;
  bool ok_ = true;
};

}  // namespace fabemu
