package modelimport

// SetAfterWrite makes every import call f after each file it writes into its
// temporary folder (an error from f fails the import there); nil removes it.
func SetAfterWrite(f func(name string) error) { afterWrite = f }

// FileSHA256 is the hex sha256 of the file at p.
func FileSHA256(p string) (string, error) { return fileSHA256(p) }
