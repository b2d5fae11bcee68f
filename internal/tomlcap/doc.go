// Package tomlcap checks a TOML file's shape before a TOML parser sees
// it: its size, how deep its arrays and inline tables nest, how long its
// keys are, and that it is UTF-8.
//
// # Why
//
// Schema files are loaded on their own from the config folder and profiles
// are often copied from others: they are input, not trusted code (issue
// 29, SECURITY.md "What is trusted"). The TOML parser's time and memory
// grow much faster than the file on some shapes (a 60 KB nested inline
// table took 49 s and 3.1 GiB; a 400 KB dotted key ran past 15 minutes),
// so Check bounds those shapes first, in one linear pass, and names the
// file and line of the first one past a bound. Everything else (syntax, the
// keys a file may hold) is left to the parser and the reader of the values.
package tomlcap
