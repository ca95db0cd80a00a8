// caffe-mpi-example reads a Caffe LMDB dataset on every MPI rank the way
// Caffe-MPI's data layer does (db::GetDB(backend), Open(source, READ),
// NewCursor, SeekToFirst / valid / Next over the records), through the lmdbio
// backend. It decodes every value as a caffe::Datum and checks it (shape
// against data size; one label per class in the key), and prints the digest
// line of `lmdbio digest`: every rank hashes what it received and the sums
// are reduced with MPI_Reduce.
//
//   lmdbio run -n 4 -- caffe-mpi-example [-v] [--epochs E] PATH
//
// With --epochs E the cursor walks E epochs, starting each with SeekToFirst
// as Caffe does, and one line per epoch is printed (prefixed epoch=e).
#include <mpi.h>

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>

#include "../common/sha256.h"
#include "datum.pb.h"
#include "db.hpp"
#include "db_lmdbio.hpp"

namespace {

// Checker decodes and checks the records one rank receives and adds them to
// the rank's digest.
class Checker {
 public:
  void Record(const char* key, size_t klen, const char* value, size_t vlen) {
    sums_[0]++;
    sums_[1] += vlen;
    sums_[2] += record_digest(key, klen, value, vlen);
    std::string k(key, klen);
    if (!datum_.ParseFromArray(value, static_cast<int>(vlen))) {
      return Fail(k, "value is not a caffe.Datum");
    }
    int64_t pixels = int64_t(datum_.channels()) * datum_.height() * datum_.width();
    if (!datum_.encoded() && pixels != int64_t(datum_.data().size()) + datum_.float_data_size()) {
      return Fail(k, "shape " + std::to_string(datum_.channels()) + "x" + std::to_string(datum_.height()) + "x" +
                         std::to_string(datum_.width()) + " but " + std::to_string(datum_.data().size()) +
                         " bytes of data");
    }
    // convert_imageset keys records "%08d_" + the image's path, whose
    // directory is its class: one class, one label.
    size_t under = k.find('_'), slash = k.find('/');
    if (under != std::string::npos && slash != std::string::npos && slash > under) {
      std::string cls = k.substr(under + 1, slash - under - 1);
      auto it = labels_.emplace(cls, datum_.label()).first;
      if (it->second != datum_.label()) {
        return Fail(k, "label " + std::to_string(datum_.label()) + ", but class " + cls + " had label " +
                           std::to_string(it->second));
      }
    }
  }

  // Sums returns this epoch's records, bytes and digest and starts anew.
  void TakeSums(uint64_t out[3]) {
    std::memcpy(out, sums_, sizeof sums_);
    std::memset(sums_, 0, sizeof sums_);
  }
  uint64_t errors() const { return errors_; }
  size_t classes() const { return labels_.size(); }

 private:
  void Fail(const std::string& key, const std::string& what) {
    if (errors_++ < 5) {
      std::fprintf(stderr, "caffe-mpi-example: record %s: %s\n", key.c_str(), what.c_str());
    }
  }

  caffe::Datum datum_;
  std::map<std::string, int> labels_;
  uint64_t sums_[3] = {0, 0, 0};  // records, bytes, digest
  uint64_t errors_ = 0;
};

int ExitCode(int status) {
  bool bad_input = status == LMDBIO_ERR_ARGUMENT || status == LMDBIO_ERR_INPUT || status == LMDBIO_ERR_LAUNCH ||
                   status == LMDBIO_ERR_VERSION;
  return bad_input ? 2 : 1;
}

int Usage(int rank) {
  if (rank == 0) std::fprintf(stderr, "usage: caffe-mpi-example [-v] [--epochs E] PATH\n");
  MPI_Finalize();
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  int provided, rank, size;
  // lmdbio calls MPI from its own threads: Caffe-MPI's MPI_Init becomes this.
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  bool verbose = false;
  long epochs = 1;
  const char* path = nullptr;
  for (int i = 1; i < argc; i++) {
    if (std::strcmp(argv[i], "-v") == 0) {
      verbose = true;
    } else if (std::strcmp(argv[i], "--epochs") == 0 && i + 1 < argc) {
      char* end;
      epochs = std::strtol(argv[++i], &end, 10);
      if (*end != '\0' || epochs < 1) return Usage(rank);
    } else if (path == nullptr && argv[i][0] != '-') {
      path = argv[i];
    } else {
      return Usage(rank);
    }
  }
  if (path == nullptr) return Usage(rank);
  // The digest counts every record exactly once, whatever the rank count.
  setenv("LMDBIO_OPTIONS", "remainder=keep", 0);

  // Opening is collective and fails on every rank alike: rank 0 says why.
  std::unique_ptr<caffe::db::DB> db;
  std::unique_ptr<caffe::db::Cursor> cursor;
  try {
    db.reset(caffe::db::GetDB("lmdbio"));
    db->Open(path, caffe::db::READ);
    cursor.reset(db->NewCursor());
  } catch (const caffe::db::LMDBIOError& e) {
    if (rank == 0) std::fprintf(stderr, "caffe-mpi-example: %s\n", e.what());
    cursor.reset();
    lmdbio_finalize();
    MPI_Finalize();
    return ExitCode(e.status());
  }
  // The zero-copy accessors of lmdbio's cursor spare the copy of value().
  auto* c = static_cast<caffe::db::LMDBIOCursor*>(cursor.get());

  Checker check;
  try {
    for (long e = 0; e < epochs; e++) {
      for (cursor->SeekToFirst(); cursor->valid(); cursor->Next()) {
        check.Record(c->key_data(), c->key_size(), c->value_data(), c->value_size());
      }
      uint64_t mine[3], total[3];
      check.TakeSums(mine);
      MPI_Reduce(mine, total, 3, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
      if (rank == 0) {
        if (epochs > 1) std::printf("epoch=%ld ", e);
        std::printf("records=%" PRIu64 " bytes=%" PRIu64 " digest=%016" PRIx64 "\n", total[0], total[1], total[2]);
        std::fflush(stdout);
      }
    }
  } catch (const caffe::db::LMDBIOError& e) {
    std::fprintf(stderr, "caffe-mpi-example: rank %d: %s\n", rank, e.what());
    MPI_Abort(MPI_COMM_WORLD, ExitCode(e.status()));
  }
  cursor.reset();
  db.reset();

  uint64_t errors = check.errors(), all_errors;
  MPI_Allreduce(&errors, &all_errors, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0 && verbose && all_errors == 0) {
    std::fprintf(stderr, "caffe-mpi-example: %d ranks: every Datum decoded, sizes match shapes, one label per class\n",
                 size);
  }
  lmdbio_finalize();
  MPI_Finalize();
  return all_errors == 0 ? 0 : 1;
}
