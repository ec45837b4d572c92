package models

// The type llama.cpp gives each tensor under a quantization scheme
// (llama_tensor_get_type), rule by rule.

// typeFor is the storage type llama-quantize gives tensor t under scheme q
// (llama_tensor_get_type in llama.cpp's src/llama-quant.cpp, for the
// schemes rehome offers).
func (m Model) typeFor(q string, t tensor) string {
	if t.ne0 == 0 || t.name == "ffn_gate_inp" {
		return "F32"
	}
	if m.Arch == "gpt-oss" && t.expert {
		return "MXFP4" // published in MXFP4 and kept so by every quantizer
	}
	base := schemes[q].base
	if q == "F16" {
		return "F16"
	}
	typ := base
	switch {
	case t.name == "output" || (t.name == "token_embd" && m.TiedEmbeddings):
		return outputType(q, base, t)
	case t.name == "token_embd":
		if q == "IQ2_XS" {
			typ = "Q2_K"
		}
	case m.Arch == "gpt-oss":
		// attention and the rest: the scheme's base type
	case q == "IQ2_XS":
		typ = m.iq2xsType(t, typ)
	case t.name == "attn_v":
		typ = m.attnVType(q, t, typ)
	case t.name == "attn_k":
		if m.Experts == 8 {
			typ = "Q8_0"
		}
	case isFFNDown(t):
		typ = m.ffnDownType(q, t, typ)
	case t.name == "attn_output":
		typ = m.attnOutputType(q, typ)
	case t.name == "attn_qkv":
		switch q {
		case "Q3_K_M":
			typ = "Q4_K"
		case "Q4_K_M":
			typ = "Q5_K"
		case "Q5_K_M":
			typ = "Q6_K"
		}
	}
	if t.ne0%ggmlTypes[typ].blockSize != 0 {
		if fb, ok := fallback[typ]; ok {
			typ = fb
		}
	}
	return typ
}

// outputType is the output head's type (and the token embeddings' where
// they are tied to it): a level above the scheme's, Q8_0 where its rows
// do not divide into the type's blocks.
func outputType(q, base string, t tensor) string {
	typ := base
	switch {
	case q == "IQ2_XS":
		typ = "Q5_K"
	case base != "Q8_0":
		typ = "Q6_K"
	}
	if t.ne0%ggmlTypes[typ].blockSize != 0 {
		typ = "Q8_0"
	}
	return typ
}

// iq2xsType is a tensor's type under IQ2_XS.
func (m Model) iq2xsType(t tensor, typ string) string {
	switch {
	case t.name == "attn_v":
		if m.Heads/m.KVHeads >= 4 || m.Experts >= 4 {
			return "Q4_K"
		}
		return "Q2_K"
	case t.name == "attn_k" && m.Experts == 8:
		return "Q4_K"
	case isFFNDown(t) && t.layer < m.Layers/8:
		return "Q2_K"
	case t.name == "attn_output" && m.Experts == 8:
		return "Q5_K"
	}
	return typ
}

// attnVType is attn_v's type: more bits than the scheme's, more still
// with grouped-query attention, the first layers, 70B models and 8
// experts.
func (m Model) attnVType(q string, t tensor, typ string) string {
	gqa, i, n := m.Heads/m.KVHeads, t.layer, m.Layers
	switch {
	case q == "Q2_K":
		typ = "Q3_K"
		if gqa >= 4 {
			typ = "Q4_K"
		}
	case q == "Q3_K_M":
		typ = "Q4_K"
		if i < 2 {
			typ = "Q5_K"
		}
	case q == "IQ4_XS" && gqa >= 4:
		typ = "Q5_K"
	case (q == "Q4_K_M" || q == "Q5_K_M") && useMoreBits(i, n):
		typ = "Q6_K"
	case q == "Q4_K_S" && i < 4:
		typ = "Q5_K"
	}
	// llama.cpp gives the models it sizes as 70B a larger attn_v:
	// one more level for Q3_K and Q4_K.
	if m.is70B() && (typ == "Q3_K" || typ == "Q4_K") {
		typ = "Q5_K"
	}
	if m.Experts == 8 {
		typ = "Q8_0"
	}
	return typ
}

// ffnDownType is ffn_down's type: more bits in the first layers.
func (m Model) ffnDownType(q string, t tensor, typ string) string {
	i, n := t.layer, m.Layers
	switch {
	case q == "Q2_K":
		typ = "Q3_K"
	case q == "Q3_K_M":
		typ = "Q4_K"
		if i < n/16 {
			typ = "Q5_K"
		}
	case (q == "Q4_K_M" || q == "Q5_K_M") && useMoreBits(i, n):
		typ = "Q6_K"
	case q == "Q4_K_S" && i < n/8:
		typ = "Q5_K"
	}
	return typ
}

// attnOutputType is attn_output's type: Q5_K for 8 experts at the
// smaller schemes, a level more at Q2_K and Q3_K_M otherwise.
func (m Model) attnOutputType(q, typ string) string {
	if m.Experts == 8 {
		switch q {
		case "Q2_K", "Q3_K_M", "Q4_K_S", "Q4_K_M", "IQ4_XS":
			return "Q5_K"
		}
		return typ
	}
	switch q {
	case "Q2_K":
		return "Q3_K"
	case "Q3_K_M":
		return "Q4_K"
	}
	return typ
}

func isFFNDown(t tensor) bool { return t.name == "ffn_down" || t.name == "ffn_down_exps" }
