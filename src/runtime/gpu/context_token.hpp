#pragma once
// A device context shared by every backend that uses it (seed "CUDA", _ContextToken): it counts
// the backends, records whether Tack owns the context, and when the last backend goes away an
// owned context is released (a retained primary context: others may hold it) or destroyed,
// while an adopted one (current on the thread that made the device, made by an embedding
// application) is never touched. The per-context queue lives here too, made on first use.
//
// Generic over the context handle and the release action so the counting is tested without a
// driver (tests/unit/gpu).

#include <functional>
#include <map>
#include <memory>
#include <mutex>

namespace tack::runtime::gpu {

/// `State`: what belongs to the context rather than to one backend (CUDA: its stream).
template <class Context, class State = int>
class ContextTokens {
  public:
    /// Called once, when an owned context's last backend goes away.
    using Release = std::function<void(Context)>;

    class Token {
      public:
        Context context() const { return context_; }
        bool owned() const { return owned_; }
        /// Shared by every backend on the context; guarded by state_mutex().
        State& state() { return state_; }
        std::mutex& state_mutex() { return state_mutex_; }

      private:
        friend class ContextTokens;
        Context context_{};
        bool owned_ = false;
        Release release_;
        State state_{};
        std::mutex state_mutex_;
        ~Token() = default;
    };

    /// The token for `ctx`: the existing one (another backend shares it) or a new one. The first
    /// acquire decides ownership; `release` runs when the last holder drops an owned token.
    std::shared_ptr<Token> acquire(Context ctx, bool owned, Release release) {
        std::lock_guard guard(mutex_);
        if (auto it = tokens_.find(ctx); it != tokens_.end()) {
            if (auto live = it->second.lock()) return live;
        }
        auto* raw = new Token();
        raw->context_ = ctx;
        raw->owned_ = owned;
        raw->release_ = std::move(release);
        std::shared_ptr<Token> token(raw, [this](Token* t) { drop(t); });
        tokens_[ctx] = token;
        return token;
    }

    /// Backends holding `ctx` right now (tests).
    long holders(Context ctx) const {
        std::lock_guard guard(mutex_);
        auto it = tokens_.find(ctx);
        return it == tokens_.end() ? 0 : it->second.use_count();
    }

  private:
    void drop(Token* t) {
        {
            std::lock_guard guard(mutex_);
            auto it = tokens_.find(t->context_);
            if (it != tokens_.end() && it->second.expired()) tokens_.erase(it);
        }
        if (t->owned_ && t->release_) t->release_(t->context_);
        delete t;
    }

    mutable std::mutex mutex_;
    std::map<Context, std::weak_ptr<Token>> tokens_;
};

}  // namespace tack::runtime::gpu
