// db_lmdbio.cpp: see db_lmdbio.hpp.
#include "db_lmdbio.hpp"

#include <cstdlib>

namespace caffe {
namespace db {

void LMDBIO::Open(const std::string& source, Mode mode) {
  if (mode != READ) {
    throw std::invalid_argument("lmdbio backend: " + source + ": lmdbio only reads (write the dataset with lmdb)");
  }
  int st = lmdbio_init(LMDBIO_ABI_VERSION);
  if (st != LMDBIO_OK) {
    throw LMDBIOError("lmdbio_init", st);
  }
  source_ = source;
  const char* options = std::getenv("LMDBIO_OPTIONS");
  options_ = options ? options : "";
}

Transaction* LMDBIO::NewTransaction() {
  throw std::logic_error("lmdbio backend: " + source_ + ": lmdbio only reads (write the dataset with lmdb)");
}

LMDBIOCursor::LMDBIOCursor(const std::string& source, const std::string& options)
    : source_(source), options_(options) {
  Open();
}

LMDBIOCursor::~LMDBIOCursor() {
  if (loader_ != nullptr) {
    lmdbio_close(loader_);
  }
}

void LMDBIOCursor::Open() {
  int st = lmdbio_open(source_.c_str(), options_.c_str(), &loader_);
  if (st != LMDBIO_OK) {
    loader_ = nullptr;
    throw LMDBIOError("lmdbio_open", st);
  }
  batch_ = lmdbio_batch{};
  index_ = 0;
  status_ = LMDBIO_END_OF_EPOCH;  // nothing read: the next Fetch starts epoch 0
  Fetch();
}

// Fetch moves to the first record of the next non-empty batch, or to the
// end of the epoch.
void LMDBIOCursor::Fetch() {
  bool starts_epoch = status_ == LMDBIO_END_OF_EPOCH;
  do {
    status_ = lmdbio_next(loader_, &batch_);
    if (status_ < 0) {
      throw LMDBIOError("lmdbio_next " + source_, status_);
    }
  } while (status_ == LMDBIO_OK && batch_.count == 0);
  index_ = 0;
  at_first_ = starts_epoch && status_ == LMDBIO_OK;
}

void LMDBIOCursor::Next() {
  if (!valid()) {
    return;
  }
  at_first_ = false;
  if (++index_ == batch_.count) {
    Fetch();
  }
}

void LMDBIOCursor::SeekToFirst() {
  if (at_first_) {
    return;
  }
  while (valid()) {  // the rest of this epoch is skipped
    index_ = batch_.count - 1;
    Next();
  }
  if (status_ == LMDBIO_END_OF_EPOCH) {
    Fetch();
  }
  if (status_ == LMDBIO_DONE) {  // every epoch read: start over
    int st = lmdbio_close(loader_);
    loader_ = nullptr;
    if (st != LMDBIO_OK) {
      throw LMDBIOError("lmdbio_close " + source_, st);
    }
    Open();
  }
}

}  // namespace db
}  // namespace caffe

