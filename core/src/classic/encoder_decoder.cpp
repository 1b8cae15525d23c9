#include "attn/classic/encoder_decoder.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <string>

#include "attn/classic/translation_corpus.hpp"
#include "attn/error.hpp"
#include "attn/random.hpp"

namespace attn::classic {
namespace {

constexpr std::size_t kMaxSequence = 256;
constexpr std::size_t kMaxSentenceBytes = 4096;  // bounds the tokeniser's and the suggestions' work
constexpr std::size_t kMaxSuggestedWords = 3;      // unknown words a message names with suggestions

bool is_search(const EncoderDecoderConfig& c) { return c.kind == EncoderDecoderKind::rnn_search; }
// Width of an encoder state h_j: both directions in rnn_search.
std::size_t state_dim(const EncoderDecoderConfig& c) { return is_search(c) ? 2 * c.hidden_dim : c.hidden_dim; }

void check_width(std::size_t value, std::size_t lo, std::size_t hi, const char* name) {
    if (value < lo || value > hi) {
        throw Error(std::string(name) + ": must be in [" + std::to_string(lo) + ", " + std::to_string(hi) +
                    "], got " + std::to_string(value));
    }
}

// y += W x, W [rows, cols] row-major. Eight running sums per row, in a fixed order, so the
// compiler can vectorise the dot products without reassociating them: the result is the same on
// every run.
template <typename T>
void add_mat_vec(const T* w, std::size_t rows, std::size_t cols, const T* x, T* y) {
    constexpr std::size_t lanes = 8;
    for (std::size_t r = 0; r < rows; ++r) {
        const T* wr = w + r * cols;
        T partial[lanes] = {};
        std::size_t c = 0;
        for (; c + lanes <= cols; c += lanes)
            for (std::size_t k = 0; k < lanes; ++k) partial[k] += wr[c + k] * x[c + k];
        T s = 0;
        for (; c < cols; ++c) s += wr[c] * x[c];
        for (std::size_t k = 0; k < lanes; ++k) s += partial[k];
        y[r] += s;
    }
}

// dx += W^T dy.
template <typename T>
void add_mat_t_vec(const T* w, std::size_t rows, std::size_t cols, const T* dy, T* dx) {
    for (std::size_t r = 0; r < rows; ++r) {
        const T* wr = w + r * cols;
        const T g = dy[r];
        for (std::size_t c = 0; c < cols; ++c) dx[c] += wr[c] * g;
    }
}

// dW += dy x^T.
template <typename T>
void add_outer(T* dw, std::size_t rows, std::size_t cols, const T* dy, const T* x) {
    for (std::size_t r = 0; r < rows; ++r) {
        T* dr = dw + r * cols;
        const T g = dy[r];
        for (std::size_t c = 0; c < cols; ++c) dr[c] += g * x[c];
    }
}

template <typename T>
T sigmoid(T x) {
    return T(1) / (T(1) + std::exp(-x));
}

// In-place softmax of n values (max subtracted first).
template <typename T>
void softmax_in_place(T* v, std::size_t n) {
    const T m = *std::max_element(v, v + n);
    T sum = 0;
    for (std::size_t k = 0; k < n; ++k) sum += (v[k] = std::exp(v[k] - m));
    for (std::size_t k = 0; k < n; ++k) v[k] /= sum;
}

// One GRU's parameters (W [3n, in], U [3n, n], b [3n]: update gate, reset gate, candidate) and,
// in the backward pass, the gradients at the same offsets.
template <typename T, typename P>
struct Gru {
    P* w;
    P* u;
    P* b;
    std::size_t in, n;
};

// The states one GRU step keeps for its backward pass.
template <typename T>
struct GruStep {
    T* z;
    T* r;
    T* cand;
};

template <typename T>
void gru_forward(const Gru<T, const T>& g, const T* x, const T* h, GruStep<T> st, T* h_out, std::vector<T>& scratch) {
    const std::size_t n = g.n;
    scratch.assign(3 * n, T(0));
    T* pre = scratch.data();
    std::copy(g.b, g.b + 3 * n, pre);
    add_mat_vec(g.w, 3 * n, g.in, x, pre);
    add_mat_vec(g.u, 2 * n, n, h, pre);  // the gates see h itself
    for (std::size_t k = 0; k < n; ++k) {
        st.z[k] = sigmoid(pre[k]);
        st.r[k] = sigmoid(pre[n + k]);
    }
    std::vector<T> rh(n);
    for (std::size_t k = 0; k < n; ++k) rh[k] = st.r[k] * h[k];
    add_mat_vec(g.u + 2 * n * n, n, n, rh.data(), pre + 2 * n);  // the candidate sees r . h
    for (std::size_t k = 0; k < n; ++k) {
        st.cand[k] = std::tanh(pre[2 * n + k]);
        h_out[k] = (T(1) - st.z[k]) * h[k] + st.z[k] * st.cand[k];
    }
}

// Adds the gradients of one GRU step, given dL/dh_out, to the parameters' gradients `dg`, to dx
// and to dh (dL/dh for the previous state).
template <typename T>
void gru_backward(const Gru<T, const T>& g, const Gru<T, T>& dg, const T* x, const T* h, GruStep<T> st,
                  const T* dh_out, T* dx, T* dh) {
    const std::size_t n = g.n;
    std::vector<T> dpre(3 * n), rh(n), drh(n, T(0));
    for (std::size_t k = 0; k < n; ++k) {
        const T dz = dh_out[k] * (st.cand[k] - h[k]);
        const T dcand = dh_out[k] * st.z[k];
        dh[k] += dh_out[k] * (T(1) - st.z[k]);
        dpre[k] = dz * st.z[k] * (T(1) - st.z[k]);
        dpre[2 * n + k] = dcand * (T(1) - st.cand[k] * st.cand[k]);
        rh[k] = st.r[k] * h[k];
    }
    const T* u_cand = g.u + 2 * n * n;
    add_mat_t_vec(u_cand, n, n, dpre.data() + 2 * n, drh.data());
    for (std::size_t k = 0; k < n; ++k) {
        dpre[n + k] = drh[k] * h[k] * st.r[k] * (T(1) - st.r[k]);
        dh[k] += drh[k] * st.r[k];
    }
    add_outer(dg.w, 3 * n, g.in, dpre.data(), x);
    for (std::size_t k = 0; k < 3 * n; ++k) dg.b[k] += dpre[k];
    add_mat_t_vec(g.w, 3 * n, g.in, dpre.data(), dx);
    add_outer(dg.u, 2 * n, n, dpre.data(), h);
    add_outer(dg.u + 2 * n * n, n, n, dpre.data() + 2 * n, rh.data());
    add_mat_t_vec(g.u, 2 * n, n, dpre.data(), dh);
}

// Pointers to every tensor of a model (P = const T) or of its gradient (P = T), by role.
template <typename T, typename P>
struct Tensors {
    P* source_embedding;
    Gru<T, P> encoder_forward, encoder_backward, decoder;
    P* init_w;
    P* init_b;
    P* target_embedding;
    P* attention_w;
    P* attention_u;
    P* attention_v;
    P* hidden_w;
    P* hidden_b;
    P* output_w;
    P* output_b;
};

template <typename T, typename P>
Tensors<T, P> bind(const EncoderDecoderConfig& c, const std::vector<ParameterTensor>& layout, P* base) {
    const auto at = [&](const char* name) -> P* {
        for (const ParameterTensor& t : layout)
            if (t.name == name) return base + t.offset;
        return nullptr;
    };
    const std::size_t m = c.embed_dim, n = c.hidden_dim;
    Tensors<T, P> t{};
    t.source_embedding = at("source_embedding");
    t.encoder_forward = {at("encoder_forward.W"), at("encoder_forward.U"), at("encoder_forward.b"), m, n};
    t.encoder_backward = {at("encoder_backward.W"), at("encoder_backward.U"), at("encoder_backward.b"), m, n};
    t.init_w = at("decoder_init.W");
    t.init_b = at("decoder_init.b");
    t.target_embedding = at("target_embedding");
    t.decoder = {at("decoder.W"), at("decoder.U"), at("decoder.b"), m + state_dim(c), n};
    t.attention_w = at("attention.W");
    t.attention_u = at("attention.U");
    t.attention_v = at("attention.v");
    t.hidden_w = at("output_hidden.W");
    t.hidden_b = at("output_hidden.b");
    t.output_w = at("output.W");
    t.output_b = at("output.b");
    return t;
}

void check_ids(const std::vector<int>& ids, std::size_t vocab, std::size_t max_len, const char* name) {
    if (ids.empty() || ids.size() > max_len) {
        throw Error(std::string(name) + ": must hold 1 to " + std::to_string(max_len) + " ids, got " +
                    std::to_string(ids.size()));
    }
    for (int id : ids) {
        if (id < 0 || static_cast<std::size_t>(id) >= vocab) {
            throw Error(std::string(name) + ": ids must be in [0, " + std::to_string(vocab) + "), got " + std::to_string(id));
        }
    }
}

// Every value the forward pass computes for one sentence pair, kept for the backward pass.
// Row-major arrays indexed by position.
template <typename T>
struct Forward {
    std::size_t tx = 0, ty = 0;
    std::vector<T> fwd_h, fwd_z, fwd_r, fwd_c;  // forward encoder: h [tx + 1, n] (row 0 = zeros)
    std::vector<T> bwd_h, bwd_z, bwd_r, bwd_c;  // backward encoder: h [tx + 1, n] (row tx = zeros)
    std::vector<T> states;                       // H [tx, dh]
    std::vector<T> projected;                    // U_a h_j [tx, a]
    std::vector<T> s, dz, dr, dc;                // decoder: s [ty + 1, n]
    std::vector<T> inputs;                       // [E y_{i-1}; c_i] [ty, m + dh]
    std::vector<T> alignment_tanh;               // tanh(W_a s_{i-1} + U_a h_j) [ty, tx, a]
    std::vector<T> scores;                       // e_ij [ty, tx]
    std::vector<T> alpha;                        // [ty, tx]
    std::vector<T> hidden;                       // t_i [ty, l]
    std::vector<T> probs;                        // [ty, Vt]
    std::vector<T> scratch;
};

template <typename T>
class Model {
public:
    explicit Model(const EncoderDecoder<T>& model)
        : c_(model.config), p_(bind<T, const T>(model.config, model.tensors, model.values.data())),
          n_(c_.hidden_dim), m_(c_.embed_dim), dh_(state_dim(c_)), a_(c_.attention_dim), l_(c_.output_dim),
          vt_(c_.target_vocab) {}

    void encode(const std::vector<int>& source, Forward<T>& f) const {
        const std::size_t tx = source.size();
        f.tx = tx;
        f.fwd_h.assign((tx + 1) * n_, T(0));
        f.fwd_z.resize(tx * n_);
        f.fwd_r.resize(tx * n_);
        f.fwd_c.resize(tx * n_);
        for (std::size_t j = 0; j < tx; ++j) {
            gru_forward(p_.encoder_forward, embedding(p_.source_embedding, source[j]), &f.fwd_h[j * n_],
                        step(f.fwd_z, f.fwd_r, f.fwd_c, j), &f.fwd_h[(j + 1) * n_], f.scratch);
        }
        f.states.assign(tx * dh_, T(0));
        for (std::size_t j = 0; j < tx; ++j) std::copy_n(&f.fwd_h[(j + 1) * n_], n_, &f.states[j * dh_]);
        if (search()) {
            f.bwd_h.assign((tx + 1) * n_, T(0));
            f.bwd_z.resize(tx * n_);
            f.bwd_r.resize(tx * n_);
            f.bwd_c.resize(tx * n_);
            for (std::size_t j = tx; j-- > 0;) {
                gru_forward(p_.encoder_backward, embedding(p_.source_embedding, source[j]), &f.bwd_h[(j + 1) * n_],
                            step(f.bwd_z, f.bwd_r, f.bwd_c, j), &f.bwd_h[j * n_], f.scratch);
                std::copy_n(&f.bwd_h[j * n_], n_, &f.states[j * dh_ + n_]);
            }
            f.projected.assign(tx * a_, T(0));
            for (std::size_t j = 0; j < tx; ++j) add_mat_vec(p_.attention_u, a_, dh_, &f.states[j * dh_], &f.projected[j * a_]);
        }
        // s_0 from the backward state at the first word (rnn_search) or the last forward state.
        f.s.assign(n_, T(0));
        std::copy_n(p_.init_b, n_, f.s.data());
        add_mat_vec(p_.init_w, n_, n_, init_input(f), f.s.data());
        for (std::size_t k = 0; k < n_; ++k) f.s[k] = std::tanh(f.s[k]);
        f.ty = 0;
    }

    // Decoder step f.ty: attends from s_{i-1}, updates the state, fills probs row i.
    void decode_step(int previous, Forward<T>& f) const {
        const std::size_t i = f.ty++, tx = f.tx;
        f.s.resize((i + 2) * n_);
        for (auto* v : {&f.dz, &f.dr, &f.dc}) v->resize((i + 1) * n_);
        f.inputs.resize((i + 1) * (m_ + dh_));
        f.hidden.resize((i + 1) * l_);
        f.probs.resize((i + 1) * vt_);
        T* x = &f.inputs[i * (m_ + dh_)];
        std::copy_n(embedding(p_.target_embedding, previous), m_, x);
        T* context = x + m_;
        const T* s_prev = &f.s[i * n_];
        if (search()) {
            f.alignment_tanh.resize((i + 1) * tx * a_);
            f.scores.resize((i + 1) * tx);
            f.alpha.resize((i + 1) * tx);
            std::vector<T> query(a_, T(0));
            add_mat_vec(p_.attention_w, a_, n_, s_prev, query.data());
            T* alpha = &f.alpha[i * tx];
            for (std::size_t j = 0; j < tx; ++j) {
                T* g = &f.alignment_tanh[(i * tx + j) * a_];
                T e = 0;
                for (std::size_t k = 0; k < a_; ++k) {
                    g[k] = std::tanh(query[k] + f.projected[j * a_ + k]);
                    e += p_.attention_v[k] * g[k];
                }
                f.scores[i * tx + j] = alpha[j] = e;
            }
            softmax_in_place(alpha, tx);
            std::fill_n(context, dh_, T(0));
            for (std::size_t j = 0; j < tx; ++j)
                for (std::size_t k = 0; k < dh_; ++k) context[k] += alpha[j] * f.states[j * dh_ + k];
        } else {
            std::copy_n(&f.states[(tx - 1) * dh_], dh_, context);
        }
        gru_forward(p_.decoder, x, s_prev, step(f.dz, f.dr, f.dc, i), &f.s[(i + 1) * n_], f.scratch);
        std::vector<T> u = output_input(f, i);
        T* t = &f.hidden[i * l_];
        std::copy_n(p_.hidden_b, l_, t);
        add_mat_vec(p_.hidden_w, l_, u.size(), u.data(), t);
        for (std::size_t k = 0; k < l_; ++k) t[k] = std::tanh(t[k]);
        T* p = &f.probs[i * vt_];
        std::copy_n(p_.output_b, vt_, p);
        add_mat_vec(p_.output_w, vt_, l_, t, p);
        softmax_in_place(p, vt_);
    }

    void backward(const std::vector<int>& source, const std::vector<int>& target, Forward<T>& f,
                  const Tensors<T, T>& d) const {
        const std::size_t tx = f.tx, ty = f.ty;
        std::vector<T> d_states(tx * dh_, T(0)), d_projected(tx * a_, T(0));
        std::vector<T> ds(n_, T(0));  // dL/ds_i flowing back from step i + 1
        std::vector<T> dlogits(vt_), dt(l_), du, dx(m_ + dh_), ds_prev(n_), dq(a_), dalpha(tx);
        for (std::size_t i = ty; i-- > 0;) {
            const int previous = i == 0 ? kBosId : target[i - 1];
            // Output layer.
            std::copy_n(&f.probs[i * vt_], vt_, dlogits.data());
            dlogits[static_cast<std::size_t>(target[i])] -= T(1);
            const T* t = &f.hidden[i * l_];
            add_outer(d.output_w, vt_, l_, dlogits.data(), t);
            for (std::size_t k = 0; k < vt_; ++k) d.output_b[k] += dlogits[k];
            std::fill(dt.begin(), dt.end(), T(0));
            add_mat_t_vec(p_.output_w, vt_, l_, dlogits.data(), dt.data());
            for (std::size_t k = 0; k < l_; ++k) dt[k] *= T(1) - t[k] * t[k];
            const std::vector<T> u = output_input(f, i);
            add_outer(d.hidden_w, l_, u.size(), dt.data(), u.data());
            for (std::size_t k = 0; k < l_; ++k) d.hidden_b[k] += dt[k];
            du.assign(u.size(), T(0));
            add_mat_t_vec(p_.hidden_w, l_, u.size(), dt.data(), du.data());
            // u = [s_i; c_i; E y_{i-1}] and x = [E y_{i-1}; c_i]: fold du into dx and ds.
            for (std::size_t k = 0; k < n_; ++k) ds[k] += du[k];
            for (std::size_t k = 0; k < dh_; ++k) dx[m_ + k] = du[n_ + k];
            for (std::size_t k = 0; k < m_; ++k) dx[k] = du[n_ + dh_ + k];
            // Decoder GRU.
            std::fill(ds_prev.begin(), ds_prev.end(), T(0));
            const T* s_prev = &f.s[i * n_];
            gru_backward(p_.decoder, d.decoder, &f.inputs[i * (m_ + dh_)], s_prev, step(f.dz, f.dr, f.dc, i), ds.data(),
                         dx.data(), ds_prev.data());
            T* de = d.target_embedding + static_cast<std::size_t>(previous) * m_;
            for (std::size_t k = 0; k < m_; ++k) de[k] += dx[k];
            const T* dcontext = dx.data() + m_;
            if (search()) {
                const T* alpha = &f.alpha[i * tx];
                T weighted = 0;
                for (std::size_t j = 0; j < tx; ++j) {
                    T dot = 0;
                    for (std::size_t k = 0; k < dh_; ++k) {
                        dot += dcontext[k] * f.states[j * dh_ + k];
                        d_states[j * dh_ + k] += alpha[j] * dcontext[k];
                    }
                    dalpha[j] = dot;
                    weighted += alpha[j] * dot;
                }
                std::fill(dq.begin(), dq.end(), T(0));
                for (std::size_t j = 0; j < tx; ++j) {
                    const T de_ij = alpha[j] * (dalpha[j] - weighted);  // softmax backward
                    const T* g = &f.alignment_tanh[(i * tx + j) * a_];
                    for (std::size_t k = 0; k < a_; ++k) {
                        d.attention_v[k] += de_ij * g[k];
                        const T dpre = de_ij * p_.attention_v[k] * (T(1) - g[k] * g[k]);
                        dq[k] += dpre;
                        d_projected[j * a_ + k] += dpre;
                    }
                }
                add_outer(d.attention_w, a_, n_, dq.data(), s_prev);
                add_mat_t_vec(p_.attention_w, a_, n_, dq.data(), ds_prev.data());
            } else {
                for (std::size_t k = 0; k < dh_; ++k) d_states[(tx - 1) * dh_ + k] += dcontext[k];
            }
            ds.swap(ds_prev);
        }
        // s_0 = tanh(W_s h_init + b_s).
        std::vector<T> d_init(n_, T(0));
        for (std::size_t k = 0; k < n_; ++k) ds[k] *= T(1) - f.s[k] * f.s[k];
        add_outer(d.init_w, n_, n_, ds.data(), init_input(f));
        for (std::size_t k = 0; k < n_; ++k) d.init_b[k] += ds[k];
        add_mat_t_vec(p_.init_w, n_, n_, ds.data(), d_init.data());
        const std::size_t init_row = search() ? n_ : (tx - 1) * dh_;  // where h_init sits in H
        for (std::size_t k = 0; k < n_; ++k) d_states[init_row + k] += d_init[k];
        if (search()) {  // U_a h_j was computed once per j, so its gradient is applied once too
            for (std::size_t j = 0; j < tx; ++j) {
                add_outer(d.attention_u, a_, dh_, &d_projected[j * a_], &f.states[j * dh_]);
                add_mat_t_vec(p_.attention_u, a_, dh_, &d_projected[j * a_], &d_states[j * dh_]);
            }
        }
        // Encoders, through time in the reverse of their reading order.
        std::vector<T> carry(n_, T(0)), dh_out(n_), dx_src(m_), next(n_);
        for (std::size_t j = tx; j-- > 0;) {
            for (std::size_t k = 0; k < n_; ++k) dh_out[k] = carry[k] + d_states[j * dh_ + k];
            std::fill(next.begin(), next.end(), T(0));
            std::fill(dx_src.begin(), dx_src.end(), T(0));
            gru_backward(p_.encoder_forward, d.encoder_forward, embedding(p_.source_embedding, source[j]),
                         &f.fwd_h[j * n_], step(f.fwd_z, f.fwd_r, f.fwd_c, j), dh_out.data(), dx_src.data(), next.data());
            add_source_gradient(d, source[j], dx_src);
            carry.swap(next);
        }
        if (!search()) return;
        std::fill(carry.begin(), carry.end(), T(0));
        for (std::size_t j = 0; j < tx; ++j) {
            for (std::size_t k = 0; k < n_; ++k) dh_out[k] = carry[k] + d_states[j * dh_ + n_ + k];
            std::fill(next.begin(), next.end(), T(0));
            std::fill(dx_src.begin(), dx_src.end(), T(0));
            gru_backward(p_.encoder_backward, d.encoder_backward, embedding(p_.source_embedding, source[j]),
                         &f.bwd_h[(j + 1) * n_], step(f.bwd_z, f.bwd_r, f.bwd_c, j), dh_out.data(), dx_src.data(),
                         next.data());
            add_source_gradient(d, source[j], dx_src);
            carry.swap(next);
        }
    }

    bool search() const { return is_search(c_); }
    std::size_t target_vocab() const { return vt_; }

private:
    const T* embedding(const T* table, int id) const { return table + static_cast<std::size_t>(id) * m_; }
    GruStep<T> step(std::vector<T>& z, std::vector<T>& r, std::vector<T>& cand, std::size_t pos) const {
        return {&z[pos * n_], &r[pos * n_], &cand[pos * n_]};
    }
    // h_init: the backward encoder's state at the first word, or the forward encoder's last state.
    const T* init_input(const Forward<T>& f) const {
        return search() ? &f.states[n_] : &f.states[(f.tx - 1) * dh_];
    }
    // [s_i; c_i; E y_{i-1}], the deep-output layer's input at step i.
    std::vector<T> output_input(const Forward<T>& f, std::size_t i) const {
        std::vector<T> u(n_ + dh_ + m_);
        const T* x = &f.inputs[i * (m_ + dh_)];
        std::copy_n(&f.s[(i + 1) * n_], n_, u.data());
        std::copy_n(x + m_, dh_, u.data() + n_);
        std::copy_n(x, m_, u.data() + n_ + dh_);
        return u;
    }
    void add_source_gradient(const Tensors<T, T>& d, int id, const std::vector<T>& dx) const {
        T* row = d.source_embedding + static_cast<std::size_t>(id) * m_;
        for (std::size_t k = 0; k < m_; ++k) row[k] += dx[k];
    }

    EncoderDecoderConfig c_;
    Tensors<T, const T> p_;
    std::size_t n_, m_, dh_, a_, l_, vt_;
};

// rows x cols values, row r starting at data + r * stride, as a double Matrix.
template <typename T>
Matrix to_matrix(const T* data, std::size_t rows, std::size_t cols, std::size_t stride) {
    Matrix out(rows, cols);
    for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t c = 0; c < cols; ++c) out.data[r * cols + c] = static_cast<double>(data[r * stride + c]);
    return out;
}

// The sentence: naming every word outside the source vocabulary (up to kMaxSuggestedWords of them)
// with the closest words that are in it, so that a reader can fix what they typed.
[[noreturn]] void throw_unknown_words(const std::vector<std::string>& unknown, const Vocabulary& vocabulary) {
    const std::size_t known = vocabulary.size() - (kEosId + 1);
    const auto quoted = [](const std::string& w) { return "'" + w + "'"; };
    const auto list = [&](const std::vector<std::string>& words) {
        std::string s;
        for (std::size_t k = 0; k < words.size(); ++k) s += (k == 0 ? "" : k + 1 == words.size() ? " or " : ", ") + quoted(words[k]);
        return s;
    };
    std::string message = "sentence: ";
    for (std::size_t k = 0; k < unknown.size() && k < kMaxSuggestedWords; ++k) {
        message += (k == 0 ? "" : k + 1 == std::min(unknown.size(), kMaxSuggestedWords) ? " and " : ", ") + quoted(unknown[k]);
    }
    if (unknown.size() > kMaxSuggestedWords) message += " (and " + std::to_string(unknown.size() - kMaxSuggestedWords) + " more)";
    message += unknown.size() == 1 ? " is" : " are";
    message += " not in this model's vocabulary of " + std::to_string(known) + " English words; try ";
    if (unknown.size() == 1) {
        message += list(vocabulary.closest(unknown[0], kMaxSuggestedWords));
    } else {
        for (std::size_t k = 0; k < unknown.size() && k < kMaxSuggestedWords; ++k) {
            message += (k == 0 ? "" : ", ") + quoted(vocabulary.closest(unknown[k], 1).at(0)) + " for " + quoted(unknown[k]);
        }
    }
    throw Error(message);
}

template <typename T>
void check_sequences(const EncoderDecoder<T>& model, const std::vector<int>& source) {
    if (model.values.size() != (model.tensors.empty() ? 0 : model.tensors.back().offset + model.tensors.back().size())) {
        throw Error("model: values must hold one entry per parameter of its layout");
    }
    check_ids(source, model.config.source_vocab, kMaxSequence, "source");
}

}  // namespace

std::vector<ParameterTensor> parameter_layout(const EncoderDecoderConfig& c) {
    check_width(c.source_vocab, 3, 100'000, "source_vocab");
    check_width(c.target_vocab, 3, 100'000, "target_vocab");
    check_width(c.embed_dim, 1, 1024, "embed_dim");
    check_width(c.hidden_dim, 1, 1024, "hidden_dim");
    check_width(c.output_dim, 1, 1024, "output_dim");
    if (is_search(c)) check_width(c.attention_dim, 1, 1024, "attention_dim");
    const std::size_t m = c.embed_dim, n = c.hidden_dim, dh = state_dim(c), a = c.attention_dim, l = c.output_dim;
    std::vector<ParameterTensor> layout;
    std::size_t offset = 0;
    const auto add = [&](const char* name, std::size_t rows, std::size_t cols) {
        layout.push_back({name, offset, rows, cols});
        offset += rows * cols;
    };
    add("source_embedding", c.source_vocab, m);
    add("encoder_forward.W", 3 * n, m);
    add("encoder_forward.U", 3 * n, n);
    add("encoder_forward.b", 3 * n, 1);
    if (is_search(c)) {
        add("encoder_backward.W", 3 * n, m);
        add("encoder_backward.U", 3 * n, n);
        add("encoder_backward.b", 3 * n, 1);
    }
    add("decoder_init.W", n, n);
    add("decoder_init.b", n, 1);
    add("target_embedding", c.target_vocab, m);
    add("decoder.W", 3 * n, m + dh);
    add("decoder.U", 3 * n, n);
    add("decoder.b", 3 * n, 1);
    if (is_search(c)) {
        add("attention.W", a, n);
        add("attention.U", a, dh);
        add("attention.v", a, 1);
    }
    add("output_hidden.W", l, n + dh + m);
    add("output_hidden.b", l, 1);
    add("output.W", c.target_vocab, l);
    add("output.b", c.target_vocab, 1);
    return layout;
}

template <typename T>
const ParameterTensor& EncoderDecoder<T>::tensor(const std::string& name) const {
    for (const ParameterTensor& t : tensors)
        if (t.name == name) return t;
    throw Error("name: the model has no parameter tensor '" + name + "'");
}

template <typename T>
EncoderDecoder<T> init_encoder_decoder(const EncoderDecoderConfig& config, std::uint64_t seed) {
    EncoderDecoder<T> model{config, parameter_layout(config), {}};
    model.values.assign(model.tensors.back().offset + model.tensors.back().size(), T(0));
    std::uint64_t counter = 0;
    for (const ParameterTensor& t : model.tensors) {
        if (t.cols == 1 && t.name != "attention.v") continue;  // biases start at zero
        // Box-Muller from two hashed uniforms per value; embeddings are rows, so unit variance.
        const double stddev = t.name.find("embedding") != std::string::npos ? 1.0 : 1.0 / std::sqrt(double(t.cols));
        for (std::size_t k = 0; k < t.size(); ++k) {
            const double u1 = 1.0 - uniform_from_hash(seed, counter++);
            const double u2 = uniform_from_hash(seed, counter++);
            model.values[t.offset + k] = static_cast<T>(stddev * std::sqrt(-2.0 * std::log(u1)) * std::cos(2 * std::numbers::pi * u2));
        }
    }
    return model;
}

template <typename To, typename From>
EncoderDecoder<To> convert_encoder_decoder(const EncoderDecoder<From>& model) {
    return {model.config, model.tensors, std::vector<To>(model.values.begin(), model.values.end())};
}

template <typename T>
T sentence_loss(const EncoderDecoder<T>& model, const std::vector<int>& source, const std::vector<int>& target,
                std::type_identity_t<std::vector<T>>* gradient) {
    check_sequences(model, source);
    check_ids(target, model.config.target_vocab, kMaxSequence, "target");
    if (gradient && gradient->size() != model.values.size()) {
        throw Error("gradient: must hold " + std::to_string(model.values.size()) + " values, got " +
                    std::to_string(gradient->size()));
    }
    const Model<T> net(model);
    Forward<T> f;
    net.encode(source, f);
    T loss = 0;
    for (std::size_t i = 0; i < target.size(); ++i) {
        net.decode_step(i == 0 ? kBosId : target[i - 1], f);
        loss -= std::log(std::max(f.probs[i * net.target_vocab() + static_cast<std::size_t>(target[i])],
                                  std::numeric_limits<T>::min()));
    }
    if (gradient) net.backward(source, target, f, bind<T, T>(model.config, model.tensors, gradient->data()));
    return loss;
}

template <typename T>
Decoded greedy_decode(const EncoderDecoder<T>& model, const std::vector<int>& source, std::size_t max_target_tokens) {
    check_sequences(model, source);
    check_width(max_target_tokens, 1, kMaxSequence, "max_target_tokens");
    const Model<T> net(model);
    Forward<T> f;
    net.encode(source, f);
    Decoded out;
    int previous = kBosId;
    while (out.target.size() < max_target_tokens && previous != kEosId) {
        const std::size_t i = out.target.size();
        net.decode_step(previous, f);
        const T* p = &f.probs[i * net.target_vocab()];
        previous = static_cast<int>(std::max_element(p, p + net.target_vocab()) - p);
        out.target.push_back(previous);
        out.trace.probabilities.push_back(static_cast<double>(p[previous]));
    }
    const std::size_t steps = out.target.size(), tx = source.size();
    if (net.search()) {
        out.alignment = to_matrix(f.alpha.data(), steps, tx, tx);
        out.trace.scores = to_matrix(f.scores.data(), steps, tx, tx);
    }
    const std::size_t n = model.config.hidden_dim, dh = state_dim(model.config), m = model.config.embed_dim;
    out.trace.queries = to_matrix(f.s.data(), steps, n, n);
    out.trace.contexts = to_matrix(f.inputs.data() + m, steps, dh, m + dh);  // x_i = [E y_{i-1}; c_i]
    out.trace.annotations = to_matrix(f.states.data(), tx, dh, dh);
    return out;
}

Translation translate(const EncoderDecoder<float>& model, const std::string& english) {
    const Vocabulary& source_vocab = source_vocabulary();
    const Vocabulary& target_vocab = target_vocabulary();
    if (model.config.source_vocab != source_vocab.size() || model.config.target_vocab != target_vocab.size()) {
        throw Error("model: its vocabularies (" + std::to_string(model.config.source_vocab) + ", " +
                    std::to_string(model.config.target_vocab) + ") are not the corpus's (" +
                    std::to_string(source_vocab.size()) + ", " + std::to_string(target_vocab.size()) + ")");
    }
    if (english.size() > kMaxSentenceBytes) {
        throw Error("sentence: must be at most " + std::to_string(kMaxSentenceBytes) + " characters, got " +
                    std::to_string(english.size()));
    }
    std::vector<std::string> words = tokenize_reader_sentence(english);
    if (words.empty() || words.size() > kMaxTranslationWords) {
        throw Error("sentence: must hold 1 to " + std::to_string(kMaxTranslationWords) + " words (the full stop counts), got " +
                    std::to_string(words.size()));
    }
    std::vector<std::string> unknown;
    for (const std::string& w : words)
        if (!source_vocab.contains(w) && std::find(unknown.begin(), unknown.end(), w) == unknown.end()) unknown.push_back(w);
    if (!unknown.empty()) throw_unknown_words(unknown, source_vocab);
    const std::vector<int> source = source_vocab.encode(words, kMaxTranslationWords);
    Decoded decoded = greedy_decode(model, source, 2 * words.size() + 10);
    Translation t;
    t.source = std::move(words);
    t.source.emplace_back(kEosToken);
    for (int id : decoded.target) t.target.push_back(target_vocab.word(id));
    t.alignment = std::move(decoded.alignment);
    t.trace = std::move(decoded.trace);
    return t;
}

#define ATTN_ENCODER_DECODER_INSTANTIATE(T)                                                                        \
    template struct EncoderDecoder<T>;                                                                             \
    template EncoderDecoder<T> init_encoder_decoder<T>(const EncoderDecoderConfig&, std::uint64_t);                \
    template T sentence_loss<T>(const EncoderDecoder<T>&, const std::vector<int>&, const std::vector<int>&,        \
                                std::vector<T>*);                                                                  \
    template Decoded greedy_decode<T>(const EncoderDecoder<T>&, const std::vector<int>&, std::size_t);
ATTN_ENCODER_DECODER_INSTANTIATE(float)
ATTN_ENCODER_DECODER_INSTANTIATE(double)
#undef ATTN_ENCODER_DECODER_INSTANTIATE
template EncoderDecoder<double> convert_encoder_decoder<double, float>(const EncoderDecoder<float>&);
template EncoderDecoder<float> convert_encoder_decoder<float, double>(const EncoderDecoder<double>&);

}  // namespace attn::classic
