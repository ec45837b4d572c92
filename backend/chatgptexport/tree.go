package chatgptexport

import (
	"fmt"
	"slices"
)

// mainPath is the branch the user was on: current_node back to the root,
// returned root first. When current_node is missing from the mapping the
// newest leaf stands for it (said in note). A node met twice is a loop in
// the tree, a path longer than maxNodes too deep: both refuse the
// conversation.
func (r *Raw) mainPath(maxNodes int, seen map[string]bool) (path []string, note string, err error) {
	leaf := string(r.CurrentNode)
	if _, ok := r.Mapping[leaf]; !ok {
		leaf = r.newestLeaf()
		if leaf == "" {
			return nil, "", fmt.Errorf("%w: it has no messages", ErrBadConversation)
		}
		note = "its current message was missing from the export: the newest branch was imported"
	}
	for id := leaf; id != ""; {
		if seen[id] {
			return nil, "", fmt.Errorf("%w: its message tree loops back on itself at message %s", ErrBadConversation, short(id))
		}
		if len(path) >= maxNodes {
			return nil, "", fmt.Errorf("%w: its message tree is deeper than %d messages", ErrBadConversation, maxNodes)
		}
		seen[id] = true
		path = append(path, id)
		n := r.Mapping[id]
		if n == nil {
			break
		}
		next := string(n.Parent)
		if _, ok := r.Mapping[next]; !ok {
			break // the root, or a parent the export left out
		}
		id = next
	}
	slices.Reverse(path)
	return path, note, nil
}

// newestLeaf is the leaf whose message is newest ("" when none).
func (r *Raw) newestLeaf() string {
	best, bestT := "", epoch(-1)
	for id, n := range r.Mapping {
		if n == nil || len(r.kids(n)) > 0 {
			continue
		}
		t := epoch(0)
		if n.Message != nil {
			t = n.Message.CreateTime
		}
		if t > bestT || (t == bestT && id > best) {
			best, bestT = id, t
		}
	}
	return best
}

// kids are a node's children that the mapping holds.
func (r *Raw) kids(n *node) []string {
	var out []string
	for _, c := range n.Children {
		if _, ok := r.Mapping[string(c)]; ok {
			out = append(out, string(c))
		}
	}
	return out
}

// branch follows a node down to a leaf, taking the newest child at each
// fork (the others are counted in dropped).
func (r *Raw) branch(from string, maxNodes int, seen map[string]bool) (path []string, dropped int, err error) {
	for id := from; id != ""; {
		if seen[id] {
			return nil, 0, fmt.Errorf("%w: its message tree loops back on itself at message %s", ErrBadConversation, short(id))
		}
		if len(path) >= maxNodes {
			return nil, 0, fmt.Errorf("%w: its message tree is deeper than %d messages", ErrBadConversation, maxNodes)
		}
		seen[id] = true
		path = append(path, id)
		kids := r.kids(r.Mapping[id])
		if len(kids) == 0 {
			break
		}
		dropped += len(kids) - 1
		id = r.newest(kids)
	}
	return path, dropped, nil
}

// newest of ids by their message's time; the last listed among equals
// (ChatGPT lists a regenerated answer after the one it replaced).
func (r *Raw) newest(ids []string) string {
	best, bestT := ids[0], epoch(-1)
	for _, id := range ids {
		t := epoch(0)
		if n := r.Mapping[id]; n != nil && n.Message != nil {
			t = n.Message.CreateTime
		}
		if t >= bestT {
			best, bestT = id, t
		}
	}
	return best
}

func short(id string) string {
	if r := []rune(id); len(r) > 40 {
		id = string(r[:40]) + "…"
	}
	return fmt.Sprintf("%q", id)
}
