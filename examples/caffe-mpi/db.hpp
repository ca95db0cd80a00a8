// db.hpp: the storage interface of Caffe's data layers (caffe::db::DB and
// caffe::db::Cursor, as in Caffe's include/caffe/util/db.hpp), declared here
// so the example builds without Caffe. A Caffe-MPI build keeps its own copy
// and only gains the lmdbio backend (db_lmdbio.hpp) and a line in GetDB.
#ifndef CAFFE_MPI_EXAMPLE_DB_HPP
#define CAFFE_MPI_EXAMPLE_DB_HPP

#include <string>

namespace caffe {
namespace db {

enum Mode { READ, WRITE, NEW };

// Cursor walks the records of a database. key() and value() return copies.
class Cursor {
 public:
  Cursor() {}
  virtual ~Cursor() {}
  virtual void SeekToFirst() = 0;
  virtual void Next() = 0;
  virtual std::string key() = 0;
  virtual std::string value() = 0;
  virtual bool valid() = 0;

  Cursor(const Cursor&) = delete;
  Cursor& operator=(const Cursor&) = delete;
};

class Transaction {
 public:
  Transaction() {}
  virtual ~Transaction() {}
  virtual void Put(const std::string& key, const std::string& value) = 0;
  virtual void Commit() = 0;

  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
};

class DB {
 public:
  DB() {}
  virtual ~DB() {}
  virtual void Open(const std::string& source, Mode mode) = 0;
  virtual void Close() = 0;
  virtual Cursor* NewCursor() = 0;
  virtual Transaction* NewTransaction() = 0;

  DB(const DB&) = delete;
  DB& operator=(const DB&) = delete;
};

// GetDB returns a new, unopened database of the named backend (the
// prototxt's data_param.backend). Caffe's knows "leveldb" and "lmdb"; this
// example knows "lmdbio" only.
DB* GetDB(const std::string& backend);

}  // namespace db
}  // namespace caffe

#endif
