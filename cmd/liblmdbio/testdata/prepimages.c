// prepimages checks lmdbio_batch_images on an encoded-Datum LMDB (lmdbio
// gen --jpeg): with prep=...,center_crop:S,chw,float32 every batch has a
// float32 tensor of shape (count, 3, S, S), its labels, and no values;
// with prep=decode the values are decoded Datums and there is no tensor;
// without prep the call is refused. Prints "prepimages: ok".
//
//   prepimages DATASET RECORDS    (RECORDS: the dataset's, on every rank)
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <lmdbio.h>

static int failures;

#define fail(...) (fprintf(stderr, __VA_ARGS__), failures++)

static long tensors(const char *path) {
	lmdbio_loader *ld;
	if (lmdbio_open(path, "batch=5 remainder=keep prep=decode,center_crop:96,chw,float32", &ld) != LMDBIO_OK) {
		fail("open with prep: %s\n", lmdbio_last_error());
		return 0;
	}
	long records = 0;
	lmdbio_batch b;
	lmdbio_images im;
	int st;
	while ((st = lmdbio_next(ld, &b)) == LMDBIO_OK) {
		if (lmdbio_batch_images(ld, &im) != LMDBIO_OK) fail("batch_images: %s\n", lmdbio_last_error());
		if (im.shape[0] != (int64_t)b.count || im.shape[1] != 3 || im.shape[2] != 96 || im.shape[3] != 96 ||
		    im.dtype != LMDBIO_DTYPE_FLOAT32 || !im.chw || im.bytes != b.count * 3 * 96 * 96 * 4 ||
		    (b.count && (!im.data || !im.labels)))
			fail("images: shape %lld,%lld,%lld,%lld dtype %d chw %d bytes %zu for %zu records\n",
			     (long long)im.shape[0], (long long)im.shape[1], (long long)im.shape[2], (long long)im.shape[3],
			     im.dtype, im.chw, im.bytes, b.count);
		const float *px = im.data;
		for (size_t i = 0; i < b.count; i++) {
			if (b.value_lens[i] != 0 || b.key_lens[i] == 0) fail("record %zu: value of %zu bytes\n", i, b.value_lens[i]);
			if (im.labels[i] < 0 || im.labels[i] >= 1000) fail("label %lld\n", (long long)im.labels[i]);
			if (px[i * 3 * 96 * 96] < 0 || px[i * 3 * 96 * 96] > 1) fail("pixel %f outside 0-1\n", px[i * 3 * 96 * 96]);
		}
		records += (long)b.count;
	}
	if (st != LMDBIO_END_OF_EPOCH) fail("next: %s\n", lmdbio_status_string(st));
	if (lmdbio_batch_images(ld, &im) != LMDBIO_OK || im.data || im.bytes) fail("images after the epoch's end\n");
	lmdbio_close(ld);
	return records;
}

static void datums(const char *path) {
	lmdbio_loader *ld;
	if (lmdbio_open(path, "batch=4 prep=decode", &ld) != LMDBIO_OK) {
		fail("open with prep=decode: %s\n", lmdbio_last_error());
		return;
	}
	lmdbio_batch b;
	lmdbio_images im;
	if (lmdbio_next(ld, &b) != LMDBIO_OK || b.count == 0) fail("next with prep=decode: %s\n", lmdbio_last_error());
	else {
		if (lmdbio_batch_images(ld, &im) != LMDBIO_OK || im.data) fail("prep=decode has a tensor\n");
		// A decoded Datum starts with channels=3 (field 1, varint): 08 03.
		if (b.value_lens[0] < 2 || b.values[0][0] != 0x08 || b.values[0][1] != 0x03) fail("not a decoded Datum\n");
	}
	lmdbio_close(ld);
}

int main(int argc, char **argv) {
	if (argc != 3) {
		fprintf(stderr, "usage: prepimages DATASET RECORDS\n");
		return 2;
	}
	if (lmdbio_init(LMDBIO_ABI_VERSION) != LMDBIO_OK) {
		fprintf(stderr, "init: %s\n", lmdbio_last_error());
		return 1;
	}
	uint64_t records = (uint64_t)tensors(argv[1]);
	if (lmdbio_allreduce_sum_u64(&records, 1) != LMDBIO_OK) fail("allreduce: %s\n", lmdbio_last_error());
	if (records != (uint64_t)atol(argv[2])) fail("%llu records in all, want %s\n", (unsigned long long)records, argv[2]);
	datums(argv[1]);
	lmdbio_loader *ld;
	lmdbio_images im;
	if (lmdbio_open(argv[1], "batch=4", &ld) == LMDBIO_OK) {
		if (lmdbio_batch_images(ld, &im) != LMDBIO_ERR_ARGUMENT) fail("batch_images without prep not refused\n");
		lmdbio_close(ld);
	}
	if (lmdbio_open(argv[1], "prep=decode,bogus", &ld) != LMDBIO_ERR_ARGUMENT) fail("a bad spec not refused\n");
	if (failures) {
		lmdbio_finalize();
		return 1;
	}
	lmdbio_topology t;
	int rank0 = lmdbio_get_topology(&t) == LMDBIO_OK && t.rank == 0;
	lmdbio_finalize();
	if (rank0) printf("prepimages: ok\n");
	return 0;
}
