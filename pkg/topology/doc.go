// Package topology tells every rank of an MPI job where it stands: its world
// rank, which node it is on, its rank among the ranks of that node, and
// whether it is the node leader (local rank 0) that reads for the node.
//
// # Overview
//
// A node is the set of ranks that share memory (MPI_Comm_split_type with
// MPI_COMM_TYPE_SHARED), unless LMDBIO_RANKS_PER_NODE=k asks for virtual nodes
// of k consecutive world ranks. Virtual nodes let multi-node behaviour run on
// one machine: ranks of different virtual nodes never share a segment or a
// socket name.
//
// The package also recognises the classic ways an MPI job is launched
// wrongly under Slurm, and says which srun --mpi value fixes them, and a
// job whose processes were started by a launcher without MPI (torchrun),
// each of which would otherwise read the whole dataset as a world of one.
//
// # Invariants
//
//   - Node ids are 0..Nodes-1, numbered in the order of their lowest world rank.
//   - Local ranks of a node are 0..LocalSize-1 in world-rank order.
//   - Leaders is non-nil exactly on local rank 0 and has one rank per node,
//     whose rank in Leaders equals Node.
package topology
