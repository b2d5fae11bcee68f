package export

import (
	"bufio"
	"fmt"
	"io"
	"os"

	"github.com/usmnscope/usmnscope/internal/termsafe"
	"github.com/usmnscope/usmnscope/session"
)

// File is an export's output (`usmnscope export -o`): the file, or
// standard output, buffered, and the Parquet Writer over it when the
// format is Parquet (nil: NDJSON, the records written as dump --json
// writes them).
type File struct {
	Out     *bufio.Writer
	Parquet *Writer

	path string
	file *os.File // nil: standard output
}

// outBuffer is the buffer between the records and the file.
const outBuffer = 256 << 10

// Create opens the export's output: the file at path, or stdout for "-";
// with cols, a Parquet Writer of those columns over it (NewWriter).
// Close ends it.
func Create(path string, stdout io.Writer, cols []Column) (*File, error) {
	f := &File{path: path}
	w := stdout
	if path != "-" {
		file, err := os.Create(path)
		if err != nil {
			return nil, fmt.Errorf("export: %s", termsafe.Escape(err.Error()))
		}
		f.file, w = file, file
	}
	f.Out = bufio.NewWriterSize(w, outBuffer)
	if cols != nil {
		f.Parquet = NewWriter(f.Out, cols)
	}
	return f, nil
}

// Close ends the export whose writing returned err (nil: it succeeded):
// it closes the Parquet Writer (also after an error: Close ends its
// goroutine), flushes and closes the file, and returns err or else the
// first error of those. A file that is no export (err, or an error of
// Close's own) is removed, if it is a regular file: a device (-o
// /dev/null) is left alone.
func (f *File) Close(err error) error {
	if f.Parquet != nil {
		if cerr := f.Parquet.Close(); err == nil {
			err = cerr
		}
	}
	if ferr := f.Out.Flush(); err == nil {
		err = ferr
	}
	if f.file == nil {
		return err
	}
	if cerr := f.file.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("export: %s", termsafe.Escape(cerr.Error()))
	}
	if fi, serr := os.Stat(f.path); err != nil && serr == nil && fi.Mode().IsRegular() {
		os.Remove(f.path)
	}
	return err
}

// Sink writes each batch's messages as Parquet rows to w through ad: the
// sink of a render.JSONStream (render.NewBatches) whose batches become
// rows instead of JSON lines. It is nil without w (NDJSON: the batches'
// records are written as they are).
func Sink(w *Writer, ad *Adapter) func(*session.JSONBatch) error {
	if w == nil {
		return nil
	}
	var rec Record
	return func(b *session.JSONBatch) error {
		for i := range b.Len() {
			ad.Of(&rec, b.Message(i))
			if err := w.Write(&rec); err != nil {
				return err
			}
		}
		return nil
	}
}
