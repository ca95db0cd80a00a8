// Package agent connects learners that are not MPI ranks to the agent of
// their node: the lmdbio rank that lmdbio run --agent starts on every node,
// which starts the node's learner processes (a PyTorch job's, with
// torchrun's environment) and is their node reader.
//
// # Overview
//
// A learner finds its agent by the abstract Unix socket named in
// LMDBIO_AGENT_SOCKET (AgentSocketEnv) and speaks to it through a Client:
// Hello (its local rank; the answer says where it stands in the job), Open
// (a dataset and its options; the answer is the node reader's socket, to
// loader.Attach to, and the session's number) and Allreduce (sums of uint64
// values over every learner of the job). Open and Allreduce are collective:
// every learner of the job makes the same calls in the same order, and each
// call returns once every learner has made it, as MPI's collectives do.
// Closed, a notice the agent does not answer, says that the learner closed
// its loader of a session: the agent knows which learners still hold one
// (Listener.OpenLoaders), and a learner that exits holding one left in the
// middle of the run.
//
// On the agent's side a Listener accepts the node's learners and a Node
// runs the calls in rounds. A round starts when every learner of the node
// has made its next call or has exited (a learner's process: its agent says
// so with Node.Exited; a connection that ends is not enough, as the process
// may connect again, or have died and be about to fail the job). The node proposes the round (the call, or a problem such as two
// learners calling differently), the agents exchange their proposals
// (Config.Exchange, an MPI allgather between them), and every agent
// decides the same thing from the same proposals: serve the dataset
// (Config.Serve, loader.Serve for the learners), add up the sums, or answer
// every learner with the same error. Once every node's learners have all
// finished, Run returns.
//
// # Wire format
//
// Each message is one frame: a little-endian uint32 length n, then n bytes
// of a JSON object. A learner sends Requests and the agent answers each
// with one Reply, in order. ReadFrame bounds n by MaxFrame; DecodeRequest
// and DecodeReply refuse unknown fields and check every field against the
// call (ErrProtocol).
//
// # Invariants
//
//   - Every agent takes part in every round, and every agent decides the
//     same outcome for it: no agent is left waiting in a collective call
//     that another skipped.
//   - A learner's call is answered once, after every learner of the job
//     made the same call, or with an error that says which learner did
//     otherwise.
//   - A learner whose agent is gone gets an error from its next call, and
//     from the node reader's socket (Next), never a hang.
//   - A local rank is held by one connection at a time; once the agent
//     knows its learners' processes (Listener.SetOwner), only a process of
//     the learner of that rank may hold it.
package agent
