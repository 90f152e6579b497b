// Reference values for the scorers: sacreBLEU's README example, sacreBLEU's own tests, the
// chrF metric card of Hugging Face (values printed by sacreBLEU), Lin (2004)'s ROUGE-L
// examples, SQuAD's normalize_answer, and small cases computed by hand step by step below.
#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "quality/bleu.h"
#include "quality/chrf.h"
#include "quality/exact_match.h"
#include "quality/request_quality.h"
#include "quality/rouge_l.h"
#include "quality/tokenizer.h"

namespace sb::quality {
namespace {

using Tokens = std::vector<std::string>;

BleuStats corpus_stats(const std::vector<std::string>& hyps,
                       const std::vector<std::vector<std::string>>& ref_streams,
                       Tokenize t = Tokenize::t13a) {
  BleuStats sum;
  for (size_t i = 0; i < hyps.size(); ++i) {
    std::vector<Tokens> refs;
    for (const auto& stream : ref_streams) refs.push_back(tokenize(stream[i], t));
    sum += bleu_stats(tokenize(hyps[i], t), refs);
  }
  return sum;
}

// sacreBLEU README ("Using SacreBLEU from Python"): with these three hypotheses and two
// reference streams, corpus_score prints
//   BLEU = 48.53 82.4/50.0/45.5/37.5 (BP = 0.943 ratio = 0.944 hyp_len = 17 ref_len = 18)
// and CHRF().corpus_score prints chrF2 = 59.73.
const std::vector<std::string> kReadmeHyps = {"The dog bit the man.", "It wasn't surprising.",
                                              "The man had just bitten him."};
const std::vector<std::vector<std::string>> kReadmeRefs = {
    {"The dog bit the man.", "It was not unexpected.", "The man bit him first."},
    {"The dog had bit the man.", "No one was surprised.", "The man had bitten the dog."}};

TEST(Bleu, SacreBleuReadmeCorpusExample) {
  const BleuStats s = corpus_stats(kReadmeHyps, kReadmeRefs);
  EXPECT_EQ(s.hyp_len, 17);
  EXPECT_EQ(s.ref_len, 18);
  const BleuScore b = compute_bleu(s);
  EXPECT_NEAR(b.score, 48.53, 0.005);
  EXPECT_NEAR(b.precisions[0], 82.4, 0.05);
  EXPECT_NEAR(b.precisions[1], 50.0, 0.05);
  EXPECT_NEAR(b.precisions[2], 45.5, 0.05);
  EXPECT_NEAR(b.precisions[3], 37.5, 0.05);
  EXPECT_NEAR(b.bp, 0.943, 0.0005);
}

TEST(Chrf, SacreBleuReadmeCorpusExample) {
  ChrfStats sum;
  for (size_t i = 0; i < kReadmeHyps.size(); ++i)
    sum += chrf_stats(kReadmeHyps[i],
                      std::vector<std::string_view>{kReadmeRefs[0][i], kReadmeRefs[1][i]});
  EXPECT_NEAR(chrf_score(sum), 59.73, 0.005);
}

// sacreBLEU tests/test_bleu.py, test_raw_bleu (tokenize none, floor smoothing 0.01,
// effective order): "this is a fest" vs "this is a test" = 0.223606797749979, and a corpus
// sharing no word with its references scores 0 (#141). By hand: p1 = 3/4, p2 = 2/3, p3 = 1/2,
// p4 = 0/1 floored to 0.01/1; (0.75 * 0.6667 * 0.5 * 0.01)^(1/4) = 0.0025^(1/4) = 0.2236.
TEST(Bleu, SacreBleuRawBleuCases) {
  auto raw = [](std::string hyp, std::string ref) {
    return compute_bleu(bleu_stats(split_whitespace(hyp), {split_whitespace(ref)}),
                        BleuSmooth::floor, 0.01, true)
               .score /
           100;
  };
  EXPECT_NEAR(raw("this is a fest", "this is a test"), 0.223606797749979, 1e-12);
  EXPECT_NEAR(raw("this is a test", "this is a test"), 1.0, 1e-12);
  BleuStats none = bleu_stats(split_whitespace("this is a test"), {split_whitespace("ref1")});
  none += bleu_stats(split_whitespace("another test"), {split_whitespace("ref2")});
  EXPECT_EQ(compute_bleu(none, BleuSmooth::floor, 0.01, true).score, 0.0);
}

// By hand, sentence BLEU (exp smoothing, effective order):
//   hyp "the cat sat on the mat", ref "the cat is on the mat" (6 tokens each, BP = 1)
//   1-grams: the x2, cat, on, mat match; sat does not  -> 5/6 = 83.333
//   2-grams: "the cat", "on the", "the mat" of 5      -> 3/5 = 60
//   3-grams: "on the mat" of 4                        -> 1/4 = 25
//   4-grams: none of 3 -> exp smoothing: 100 / (2 * 3) = 16.667
//   BLEU = (83.333 * 60 * 25 * 16.667)^(1/4) = 2083333.3^(1/4) = 37.9918
TEST(Bleu, SentenceBleuByHand) {
  const BleuStats s =
      bleu_stats(tokenize_13a("the cat sat on the mat"), {tokenize_13a("the cat is on the mat")});
  EXPECT_EQ(s.correct, (std::array<int64_t, 4>{5, 3, 1, 0}));
  EXPECT_EQ(s.total, (std::array<int64_t, 4>{6, 5, 4, 3}));
  EXPECT_NEAR(sentence_bleu(s), 37.99178428257963, 1e-9);
  // Corpus BLEU of the same single sentence: no effective order, so the same here.
  EXPECT_NEAR(corpus_bleu(s), 37.99178428257963, 1e-9);
}

// Brevity penalty by hand: hyp "the cat" (2 tokens) vs ref "the cat sat" (3): p1 = 2/2,
// p2 = 1/1, p3 and p4 have no n-grams (total 0) -> effective order 2: exp(mean(ln 100,
// ln 100)) = 100; bp = exp(1 - 3/2) = 0.60653 -> 60.653. Corpus BLEU (order 4) takes
// log(0) as -9999999999 for the empty orders: 0.
TEST(Bleu, BrevityPenaltyAndEffectiveOrder) {
  const BleuStats s = bleu_stats(tokenize_13a("the cat"), {tokenize_13a("the cat sat")});
  EXPECT_NEAR(sentence_bleu(s), 100 * std::exp(-0.5), 1e-9);
  EXPECT_NEAR(corpus_bleu(s), 0.0, 1e-12);
}

// Hugging Face's chrF metric card (evaluate-metric/chrf, computed by sacreBLEU CHRF with
// char_order 6, word_order 0, beta 2): one sentence 61.576379378113785; a two-sentence corpus
// 84.64214891738334.
TEST(Chrf, MetricCardExamples) {
  EXPECT_NEAR(
      chrf_score(chrf_stats("The relationship between Obama and Netanyahu is not exactly friendly.",
                            "The ties between Obama and Netanyahu are not particularly friendly.")),
      61.576379378113785, 1e-9);
  ChrfStats sum = chrf_stats("The relationship between cats and dogs is not exactly friendly.",
                             "The relationship between dogs and cats is not exactly friendly.");
  sum += chrf_stats("a good bookshop is just a genteel black hole that knows how to read.",
                    "A good bookshop is just a genteel Black Hole that knows how to read.");
  EXPECT_NEAR(chrf_score(sum), 84.64214891738334, 1e-9);
}

// By hand: hyp "ab" vs ref "abc" (whitespace removed first).
//   order 1: hyp {a, b} ref {a, b, c} match 2 -> P 2/2, R 2/3
//   order 2: hyp {ab}   ref {ab, bc}  match 1 -> P 1/1, R 1/2
//   orders 3..6: no hyp n-gram -> not effective (P, R count as 1e-16)
//   P = 1, R = (2/3 + 1/2) / 2 = 7/12; chrF2 = 5 * P * R / (4P + R) = (35/12) / (55/12) = 7/11
TEST(Chrf, ByHand) {
  EXPECT_NEAR(chrf_score(chrf_stats("a b", "abc")), 100.0 * 7 / 11, 1e-9);
  EXPECT_EQ(chrf_score(chrf_stats("", "abc")), 0.0);
  // No match at all: sacreBLEU 2.x's 1e-16 stand-ins leave 1e-14, printed as 0.00.
  EXPECT_NEAR(chrf_score(chrf_stats("xyz", "abc")), 0.0, 1e-12);
}

// Lin (2004), section 3.1: reference "police killed the gunman"; S2 "police kill the
// gunman" has LCS 3 ("police the gunman") -> ROUGE-L 3/4; S3 "the gunman kill police" has
// LCS 2 ("the gunman") -> 2/4 = 0.5.
TEST(RougeL, LinPaperExamples) {
  const Tokens ref = split_whitespace("police killed the gunman");
  EXPECT_DOUBLE_EQ(rouge_l(split_whitespace("police kill the gunman"), ref).f1, 0.75);
  EXPECT_DOUBLE_EQ(rouge_l(split_whitespace("the gunman kill police"), ref).f1, 0.5);
  // By hand, unequal lengths: LCS("a b c d e", "a c e") = 3, P = 3/5, R = 1,
  // F1 = 2 * 0.6 / 1.6 = 0.75.
  const RougeL r = rouge_l(split_whitespace("a b c d e"), split_whitespace("a c e"));
  EXPECT_EQ(r.lcs, 3);
  EXPECT_DOUBLE_EQ(r.f1, 0.75);
  EXPECT_EQ(rouge_l({}, ref).f1, 0.0);
}

// SQuAD v1.1 evaluate-v1.1.py normalize_answer.
TEST(ExactMatch, SquadNormalisation) {
  EXPECT_EQ(normalize_answer("The  Eiffel Tower!"), "eiffel tower");
  EXPECT_EQ(normalize_answer("an apple, a pear & the plum."), "apple pear plum");
  EXPECT_EQ(normalize_answer("Theater"), "theater");  // articles only as whole words
  EXPECT_TRUE(exact_match("Denver Broncos", "the denver broncos."));
  EXPECT_FALSE(exact_match("Denver", "Denver Broncos"));
  EXPECT_TRUE(exact_match("", ""));
}

// 13a literal cases, traced through sacreBLEU's rules by hand.
TEST(Tokenize13a, Rules) {
  EXPECT_EQ(tokenize_13a("Hello, world!"), (Tokens{"Hello", ",", "world", "!"}));
  // Period and comma stay between digits; a dash after a digit is split.
  EXPECT_EQ(tokenize_13a("It costs 1,000.50 in 2019-2020."),
            (Tokens{"It", "costs", "1,000.50", "in", "2019", "-", "2020", "."}));
  // The apostrophe is not split; HTML entities are unescaped; "-\n" joins the word halves.
  EXPECT_EQ(tokenize_13a("wasn't &quot;x&quot; &amp; y"),
            (Tokens{"wasn't", "\"", "x", "\"", "&", "y"}));
  EXPECT_EQ(tokenize_13a("co-\noperate<skipped>\nnow"), (Tokens{"cooperate", "now"}));
  // Unicode whitespace separates (U+3000, U+00A0), like Python's str.split().
  EXPECT_EQ(tokenize_13a("a\u3000b\u00a0c"), (Tokens{"a", "b", "c"}));
  EXPECT_TRUE(tokenize_13a("").empty());
  EXPECT_TRUE(tokenize_13a(" \n\t ").empty());
}

// CJK: 13a leaves "我喜欢猫" one token; zh splits every ideograph. By hand, hyp "我喜欢猫" vs
// ref "我喜欢狗" with zh: p1 = 3/4, p2 = 2/3, p3 = 1/2, p4 = 0/1 -> exp smoothing 100/(2*1)
// = 50; sentence BLEU = (75 * 66.667 * 50 * 50)^(1/4) = 59.4604.
TEST(Cjk, ZhTokenizerAndAutoDetection) {
  EXPECT_EQ(tokenize_13a("我喜欢猫"), (Tokens{"我喜欢猫"}));
  EXPECT_EQ(tokenize_zh("我喜欢猫。OK, 好"),
            (Tokens{"我", "喜", "欢", "猫", "。", "OK", ",", "好"}));
  EXPECT_TRUE(mostly_cjk("我喜欢猫 ok"));
  EXPECT_FALSE(mostly_cjk("I like cats 猫"));
  const RequestQuality q = score_request("我喜欢猫", "我喜欢狗");
  EXPECT_NEAR(q.bleu, 59.46035575013605, 1e-9);
  EXPECT_EQ(score_request("我喜欢猫", "我喜欢狗", Tokenize::t13a).bleu, 0.0);
  // sacreBLEU's zh table quirk: U+2014 (em dash) is in its '\u20000'..'\u2a6d6' entry.
  EXPECT_EQ(tokenize_zh("a\u2014b"), (Tokens{"a", "\u2014", "b"}));
  EXPECT_EQ(tokenize_char("日本 語"), (Tokens{"日", "本", "語"}));
  // chrF counts code points, not bytes: "日本" vs "日本語" = the "ab" vs "abc" case (7/11).
  EXPECT_NEAR(chrf_score(chrf_stats("日本", "日本語")), 100.0 * 7 / 11, 1e-9);
}

TEST(BadInput, EmptyReferenceAndInvalidUtf8) {
  const RequestQuality e = score_request("some answer", "");
  EXPECT_TRUE(e.empty_reference);
  EXPECT_EQ(e.bleu, 0.0);
  EXPECT_EQ(e.chrf, 0.0);
  EXPECT_EQ(e.rouge_l, 0.0);
  EXPECT_FALSE(e.exact_match);
  EXPECT_EQ(e.bleu_stats.ref_len, 0);
  const RequestQuality both = score_request("", "");
  EXPECT_TRUE(both.exact_match);
  EXPECT_EQ(both.bleu, 0.0);
  // Invalid UTF-8 (a lone continuation byte, a cut 3-byte sequence) scores without crashing,
  // each bad byte read as U+FFFD.
  const RequestQuality bad = score_request("ok \x80 \xe6\x97", "ok \x80 \xe6\x97");
  EXPECT_TRUE(bad.exact_match);
  EXPECT_GT(bad.chrf, 99.9);
}

TEST(Totals, CorpusFromStreamedStatistics) {
  QualityTotals t;
  EXPECT_FALSE(t.corpus().has_value());
  for (size_t i = 0; i < kReadmeHyps.size(); ++i)
    t.add(score_request(kReadmeHyps[i], kReadmeRefs[0][i]));
  t.add(score_request("x", ""));
  const auto c = t.corpus();
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->scored, 4);
  EXPECT_EQ(c->empty_references, 1);
  EXPECT_NEAR(c->exact_match, 0.25, 1e-12);
  // Streaming equals batch: the summed per-request statistics give the corpus score.
  BleuStats batch = corpus_stats(kReadmeHyps, {kReadmeRefs[0]});
  batch += bleu_stats(tokenize_13a("x"), {Tokens{}});
  EXPECT_DOUBLE_EQ(c->bleu, corpus_bleu(batch));
  QualityTotals merged;
  merged += t;
  EXPECT_DOUBLE_EQ(merged.corpus()->bleu, c->bleu);
}

TEST(Tokenize, Names) {
  for (auto t : {Tokenize::automatic, Tokenize::t13a, Tokenize::zh, Tokenize::chr})
    EXPECT_EQ(tokenize_from_string(to_string(t)), t);
  EXPECT_FALSE(tokenize_from_string("spacy").has_value());
}

}  // namespace
}  // namespace sb::quality
