// db_lmdbio.hpp: lmdbio as a third Caffe database backend, next to leveldb
// and lmdb. Each rank's cursor walks only the records lmdbio hands that rank
// (one reader per node reads them in large sequential spans and passes them
// through shared memory), so the data layer needs no skipping of the other
// ranks' records.
//
// Options (batch, epochs, mode, ...; see include/lmdbio.h) come from the
// environment variable LMDBIO_OPTIONS, so the prototxt names only the
// backend. Opening a database and creating its cursor are collective: every
// rank does them, in the same order, as Caffe's data layers do.
#ifndef CAFFE_MPI_EXAMPLE_DB_LMDBIO_HPP
#define CAFFE_MPI_EXAMPLE_DB_LMDBIO_HPP

#include <lmdbio.h>

#include <stdexcept>
#include <string>

#include "db.hpp"

namespace caffe {
namespace db {

// LMDBIOError is thrown for any failure lmdbio reports; status is lmdbio's.
class LMDBIOError : public std::runtime_error {
 public:
  LMDBIOError(const std::string& what, int status)
      : std::runtime_error(what + ": " + lmdbio_last_error()), status_(status) {}
  int status() const { return status_; }

 private:
  int status_;
};

// LMDBIOCursor walks this rank's records, epoch after epoch. SeekToFirst
// moves to the start of the next epoch (Caffe calls it when valid() turns
// false); at the start of an epoch it does nothing. After the loader's last
// epoch it opens the dataset again, so the walk never ends, as Caffe's LMDB
// cursor wraps around. The cursor is used by one thread at a time.
class LMDBIOCursor : public Cursor {
 public:
  LMDBIOCursor(const std::string& source, const std::string& options);
  ~LMDBIOCursor() override;

  void SeekToFirst() override;
  void Next() override;
  std::string key() override { return std::string(key_data(), key_size()); }
  std::string value() override { return std::string(value_data(), value_size()); }
  bool valid() override { return index_ < batch_.count; }

  // Zero-copy views of the current record, valid until Next or SeekToFirst:
  // parse a Datum with ParseFromArray(value_data(), value_size()) instead of
  // ParseFromString(value()) to skip the copy.
  const char* key_data() const { return reinterpret_cast<const char*>(batch_.keys[index_]); }
  size_t key_size() const { return batch_.key_lens[index_]; }
  const char* value_data() const { return reinterpret_cast<const char*>(batch_.values[index_]); }
  size_t value_size() const { return batch_.value_lens[index_]; }

 private:
  void Open();
  void Fetch();

  std::string source_, options_;
  lmdbio_loader* loader_ = nullptr;
  lmdbio_batch batch_ = {};
  size_t index_ = 0;
  int status_ = LMDBIO_OK;  // of the last lmdbio_next
  bool at_first_ = false;   // at the first record of an epoch
};

// LMDBIO is the database. Open joins (or initialises) MPI through lmdbio;
// NewCursor opens the dataset. It is read-only.
class LMDBIO : public DB {
 public:
  LMDBIO() {}
  ~LMDBIO() override { Close(); }

  void Open(const std::string& source, Mode mode) override;
  void Close() override {}
  Cursor* NewCursor() override { return new LMDBIOCursor(source_, options_); }
  Transaction* NewTransaction() override;

 private:
  std::string source_, options_;
};

}  // namespace db
}  // namespace caffe

#endif
