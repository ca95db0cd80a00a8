// db.cpp: GetDB, as in Caffe's src/caffe/util/db.cpp. The lmdbio backend is
// the branch a Caffe-MPI patch adds next to leveldb and lmdb.
#include "db.hpp"

#include <stdexcept>

#include "db_lmdbio.hpp"

namespace caffe {
namespace db {

DB* GetDB(const std::string& backend) {
  if (backend == "lmdbio") {
    return new LMDBIO();
  }
  throw std::invalid_argument("unknown database backend \"" + backend + "\" (this example has only lmdbio)");
}

}  // namespace db
}  // namespace caffe
