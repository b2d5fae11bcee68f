// Package listeners is Unturned's listener-ID tables (wire.md 4.5): the
// server and client tables of one connection, the IDs each side said it
// lacks, and the references waiting for their ID, with the findings the
// tables give (version mismatches, limits). Each decoded USMN message is
// turned into one Op (OpFor) and applied in message order (State.Apply);
// a host keeps copies of a State (Clone) as checkpoints and gives the
// tables as of a message (Snapshot).
//
// It sits over the Unturned codec and under session, which numbers the
// messages, keeps the checkpoints and shows the tables (the import-graph
// test in internal/pipeline places it).
package listeners
