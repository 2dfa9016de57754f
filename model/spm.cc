// spm.cc: the C face of SentencePiece (see spm.h).  SentencePiece has only a
// C++ API; this file is the one place the project speaks C++, and nothing
// here decides anything the C side could: it trains, loads, encodes and
// names pieces.
#include "spm.h"

#include <sentencepiece_processor.h>
#include <sentencepiece_trainer.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <iostream>
#include <sstream>
#include <string>
#include <unordered_map>
#include <vector>

struct rl_spm {
    sentencepiece::SentencePieceProcessor sp;
};

namespace {

void say(char *msg, const std::string &s)
{
    std::snprintf(msg, RL_SPM_MSG, "%s", s.c_str());
    for (char *c = msg; *c; c++) // one line, whatever the library said
        if (*c == '\n' || *c == '\r')
            *c = ' ';
}

// SentencePiece logs to std::cerr (its LOG and CHECK macros): its training
// honours minloglevel, but loading and encoding run at its default level,
// and a library line beside routelab's own would break the one-line rule.
// Every call into it holds std::cerr in a buffer for its duration; what the
// call has to say comes back as its status.
class Quiet {
  public:
    Quiet() : old_(std::cerr.rdbuf(buf_.rdbuf())) {}
    ~Quiet() { std::cerr.rdbuf(old_); }
    // The first line held, without its "file.cc(N) LOG(LEVEL) " source tag.
    std::string said() const
    {
        std::string t = buf_.str();
        t = t.substr(0, t.find('\n'));
        size_t tag = t.find(") LOG(");
        size_t end = tag == std::string::npos ? std::string::npos : t.find(") ", tag + 6);
        return end == std::string::npos ? t : t.substr(end + 2);
    }
    Quiet(const Quiet &) = delete;
    Quiet &operator=(const Quiet &) = delete;

  private:
    std::ostringstream buf_;
    std::streambuf *old_;
};

// The training sentences: the non-empty lines of the text, in order.
class Lines : public sentencepiece::SentenceIterator {
  public:
    Lines(const char *t, size_t n) : t_(t), n_(n) { Next(); }
    bool done() const override { return done_; }
    void Next() override
    {
        while (pos_ < n_) {
            const char *nl = static_cast<const char *>(std::memchr(t_ + pos_, '\n', n_ - pos_));
            size_t end = nl ? static_cast<size_t>(nl - t_) : n_;
            size_t at = pos_;
            pos_ = end + 1;
            if (end > at) {
                cur_.assign(t_ + at, end - at);
                return;
            }
        }
        done_ = true;
    }
    const std::string &value() const override { return cur_; }
    sentencepiece::util::Status status() const override { return sentencepiece::util::Status(); }

  private:
    const char *t_;
    size_t n_, pos_ = 0;
    bool done_ = false;
    std::string cur_;
};

} // namespace

extern "C" int rl_spm_train(const char *text, size_t n, int vocab, char **model, size_t *len,
                            char msg[RL_SPM_MSG])
{
    *model = nullptr;
    *len = 0;
    try {
        Quiet quiet;
        // identity normalisation, no dummy prefix and no whitespace removal:
        // decoding gives back the bytes; one thread: the same model every run
        const std::unordered_map<std::string, std::string> kw = {
            { "model_type", "bpe" },
            { "vocab_size", std::to_string(vocab) },
            { "byte_fallback", "true" },
            { "normalization_rule_name", "identity" },
            { "add_dummy_prefix", "false" },
            { "remove_extra_whitespaces", "false" },
            { "split_digits", "false" },
            { "num_threads", "1" },
            { "minloglevel", "3" },
            { "max_sentence_length", "1048576" },
        };
        Lines it(text, n);
        std::string out;
        auto st = sentencepiece::SentencePieceTrainer::Train(kw, &it, &out);
        if (!st.ok()) {
            say(msg, st.ToString());
            return 2;
        }
        *model = static_cast<char *>(std::malloc(out.size() ? out.size() : 1));
        if (!*model) {
            say(msg, "out of memory");
            return 1;
        }
        std::memcpy(*model, out.data(), out.size());
        *len = out.size();
        return 0;
    } catch (const std::exception &e) {
        say(msg, std::string("SentencePiece training failed: ") + e.what());
        return 1;
    }
}

extern "C" rl_spm *rl_spm_load(const char *model, size_t len, char msg[RL_SPM_MSG])
{
    try {
        Quiet quiet;
        rl_spm *p = new rl_spm;
        auto st = p->sp.LoadFromSerializedProto(std::string(model, len));
        if (!st.ok() || p->sp.GetPieceSize() <= 0) {
            const std::string why = st.ToString();
            say(msg, st.ok() ? "it has no pieces"
                     : why.find("ParseFromArray") != std::string::npos ? "it does not parse as one"
                     : why.find("Self-test") != std::string::npos    ? "its own self-test fails: " + quiet.said()
                                                                       : why);
            delete p;
            return nullptr;
        }
        return p;
    } catch (const std::exception &e) {
        say(msg, e.what());
        return nullptr;
    }
}

extern "C" void rl_spm_free(rl_spm *p)
{
    delete p;
}

extern "C" int rl_spm_size(const rl_spm *p)
{
    return p->sp.GetPieceSize();
}

extern "C" int rl_spm_eos(const rl_spm *p)
{
    return p->sp.eos_id();
}

extern "C" int rl_spm_encode(const rl_spm *p, const char *text, size_t n, int **ids, size_t *nids,
                             char msg[RL_SPM_MSG])
{
    *ids = nullptr;
    *nids = 0;
    try {
        Quiet quiet;
        std::vector<int> v;
        auto st = p->sp.Encode(std::string(text, n), &v);
        if (!st.ok()) {
            say(msg, st.ToString());
            return 2;
        }
        if (v.empty())
            return 0;
        *ids = static_cast<int *>(std::malloc(v.size() * sizeof(int)));
        if (!*ids) {
            say(msg, "out of memory");
            return 1;
        }
        std::memcpy(*ids, v.data(), v.size() * sizeof(int));
        *nids = v.size();
        return 0;
    } catch (const std::exception &e) {
        say(msg, e.what());
        return 1;
    }
}

extern "C" long rl_spm_piece(const rl_spm *p, int id, char *buf, size_t cap, char msg[RL_SPM_MSG])
{
    try {
        Quiet quiet;
        const auto &sp = p->sp;
        if (id < 0 || id >= sp.GetPieceSize()) {
            std::snprintf(msg, RL_SPM_MSG, "id %d is outside the tokenizer's %d pieces", id,
                          sp.GetPieceSize());
            return -1;
        }
        const std::string &s = sp.IdToPiece(id);
        if (sp.IsUnknown(id) || sp.IsControl(id) || sp.IsUnused(id)) {
            say(msg, "id " + std::to_string(id) + " is " + s + ", a piece with no text");
            return -1;
        }
        if (sp.IsByte(id)) { // "<0xAB>"
            if (cap < 1 || s.size() != 6)
                return -1;
            buf[0] = static_cast<char>(std::strtoul(s.substr(3, 2).c_str(), nullptr, 16));
            return 1;
        }
        static const char low[] = "\xe2\x96\x81"; // U+2581 stands for a space
        size_t o = 0;
        for (size_t k = 0; k < s.size() && o < cap;)
            if (s.compare(k, 3, low) == 0) {
                buf[o++] = ' ';
                k += 3;
            } else {
                buf[o++] = s[k++];
            }
        return static_cast<long>(o);
    } catch (const std::exception &e) {
        say(msg, e.what());
        return -1;
    }
}
