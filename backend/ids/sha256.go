package ids

// IsSHA256 says whether s is a SHA-256 written as 64 lower-case hex
// digits: the name rehome gives a kept file's folder, or its content.
func IsSHA256(s string) bool {
	if len(s) != 64 {
		return false
	}
	for _, c := range s {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
