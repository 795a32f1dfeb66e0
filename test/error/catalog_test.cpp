// The error catalog (issue 13), in the spirit of Halide's test/error: one
// case per kind of user error (command line, pipeline files, schedules,
// sizes, images, environment), each run through the command line as a user
// would run it, asserting its exit code (0, 1 or 2 only: a signal shows as
// 128 + its number), a message of one line for usage errors, and the key
// words of the message. README.md, "Exit codes", states the rule.
#include "support/cli_runner.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

namespace trapeze {
namespace {

namespace fs = std::filesystem;

struct CatalogCase {
  const char* name;
  /// The arguments; "{dir}" is the case's own directory.
  std::string args;
  int exit_code;
  std::vector<std::string> words;                              ///< in stderr, in any order
  std::vector<std::pair<std::string, std::string>> files = {}; ///< written into {dir} first
  std::string environment = "";
};

std::ostream& operator<<(std::ostream& os, const CatalogCase& c) { return os << c.name; }

// A small valid pipeline that most cases break in one place.
const std::string kBlur1d = "pipeline blur1d\n"
                            "param N: int64 = 16\n"
                            "input img: float32[N]\n"
                            "stage f(x): float32 on [1, N - 2]\n"
                            "  = img(x - 1) + img(x + 1)\n"
                            "output f\n";

std::pair<std::string, std::string> tz(const std::string& text) { return {"p.tz", text}; }
std::pair<std::string, std::string> json(const std::string& text) { return {"s.json", text}; }
/// A .npy file `name` of dtype `descr` and `shape` (a Python tuple) holding
/// `bytes` bytes of `fill`.
std::pair<std::string, std::string> npy(const std::string& name, const std::string& descr,
                                        const std::string& shape, std::size_t bytes,
                                        char fill = '\0') {
  const std::string header =
      "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }\n";
  return {name, std::string("\x93NUMPY\x01\x00", 8) + static_cast<char>(header.size()) + '\0' +
                    header + std::string(bytes, fill)};
}

// A pipeline of one stage `f(x)` on [0, 7] defined by `value`, over int32 input `a`.
std::string with_value(const std::string& value) {
  return "pipeline v\ninput a: int32[8]\nstage f(x): int32 on [0, 7]\n  = " + value +
         "\noutput f\n";
}

// ---- the catalog ----------------------------------------------------------------------------

const std::vector<CatalogCase> kCases = {
    // The command line: usage errors, exit 2 with one line.
    {"NoCommand", "", 2, {"A subcommand is required"}},
    {"UnknownCommand", "frobnicate", 2, {"unknown command 'frobnicate'", "run"}},
    {"UnknownOption", "run blur --nope", 2, {"--nope"}},
    {"MissingPipeline", "run", 2, {"pipeline is required"}},
    {"UnknownApp", "run nosuch", 2, {"'nosuch' is neither an app", "blur, unsharp"}},
    {"MissingPipelineFile", "run {dir}/missing.tz", 2, {"missing.tz' is neither an app"}},
    {"UnknownParameter", "run blur --param Q=1", 2, {"no parameter named 'Q'", "C (int64)"}},
    {"MalformedParameter", "run blur --param R", 2, {"--param expects NAME=VALUE, got 'R'"}},
    {"ParameterWithoutName", "run blur --param =3", 2, {"--param expects NAME=VALUE"}},
    {"FloatForAnIntParameter",
     "run blur --param R=1.5",
     2,
     {"R is int64", "'1.5' is not an integer"}},
    {"ParameterNotANumber", "run unsharp --param weight=heavy", 2, {"'heavy' is not a number"}},
    {"ParameterBeyondInt64",
     "run blur --param R=99999999999999999999",
     2,
     {"out of the int64 range"}},
    {"FloatParameterBeyondFloat64",
     "run unsharp --param weight=1e999",
     2,
     {"out of the float64 range"}},
    {"ParameterTwice", "run blur --param R=8 --param R=9", 2, {"--param R is given twice"}},
    {"ParameterOutsideItsRange",
     "run {dir}/p.tz --param n=0",
     2,
     {"declared in [1, 64]"},
     {tz("pipeline r\nparam n: int64 >= 1 <= 64 = 4\nstage f(x): int32 on [0, n]\n  = x\noutput "
         "f\n")}},
    {"ZeroReps", "run blur --reps 0", 2, {"--reps"}},
    {"TooManyThreads", "run blur --threads 5000", 2, {"--threads"}},
    {"ThreadsNotANumber", "run blur --threads many", 2, {"--threads"}},
    {"UnknownScheduler", "run blur --scheduler fancy", 2, {"fancy"}},
    {"ManualSchedulerForAFile",
     "run {dir}/p.tz --scheduler manual",
     2,
     {"--scheduler manual needs an app"},
     {tz(kBlur1d)}},
    {"MissingScheduleFile", "run blur --schedule {dir}/none.json", 2, {"none.json"}},
    {"ScheduleAndScheduler",
     "run blur --schedule {dir}/s.json --scheduler dp",
     2,
     {"excludes"},
     {json("{}")}},
    {"InputNotAnImageForAFile",
     "run {dir}/p.tz --input {dir}/p.tz",
     2,
     {"--input", "p.tz' is not an image"},
     {tz(kBlur1d)}},
    {"MissingInputImage", "run blur --input {dir}/none.png", 2, {"none.png"}},
    {"BenchUnknownApp", "bench nosuch", 2, {"nosuch not in"}},
    {"BenchUnknownPeer", "bench blur --peers tvm", 2, {"tvm not in"}},
    {"BenchUnknownScheduler", "bench blur --schedulers fancy", 2, {"fancy"}},
    {"BenchNegativeLoad", "bench blur --load -1", 2, {"--load"}},
    {"EmitWithoutOut", "emit blur", 2, {"--out is required"}},
    {"CostWeightsNegative",
     "schedule blur --cost-weights -1,1,1,1",
     1,
     {"--cost-weights", "zero or positive"}},
    {"ExplainAfterUnknownPass", "explain blur --lowered --after nosuch", 2, {"nosuch not in"}},

    // Images given on the command line: exit 2.
    {"InputNotAPng",
     "run blur --input {dir}/fake.png",
     2,
     {"--input", "fake.png' is not an image"},
     {{"fake.png", "hello, world\n"}}},
    {"InputTruncatedPng",
     "run blur --input {dir}/cut.png",
     2,
     {"--input", "cannot read PNG file"},
     {{"cut.png", std::string("\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR\0\0", 16)}}},
    {"InputEmptyFile", "run blur --input {dir}/empty.png", 2, {"--input"}, {{"empty.png", ""}}},
    {"NamedInputMissingFile",
     "run {dir}/p.tz --input img={dir}/none.png",
     2,
     {"--input img=", "none.png", "No such file or directory"},
     {tz(kBlur1d)}},
    {"NamedInputTruncatedPng",
     "run {dir}/p.tz --input img={dir}/cut.png",
     2,
     {"--input img=", "cannot read PNG file", "cut.png"},
     {tz(kBlur1d), {"cut.png", std::string("\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR\0\0", 16)}}},
    {"NamedInputTruncatedNpy",
     "run {dir}/p.tz --input img={dir}/cut.npy",
     2,
     {"--input img=", "the data is truncated", "cut.npy"},
     {tz(kBlur1d), npy("cut.npy", "<f4", "(16,)", 20)}},
    {"UnknownInputName",
     "run {dir}/p.tz --input nope={dir}/x.png",
     2,
     {"no input named 'nope'", "its inputs: img"},
     {tz(kBlur1d)}},
    {"InputGivenTwice",
     "run {dir}/p.tz --input img={dir}/a.npy --input img={dir}/b.npy",
     2,
     {"--input img=... is given twice"},
     {tz(kBlur1d)}},
    {"InputWithTheWrongChannelCount",
     "run {dir}/p.tz --input img={dir}/rgba.npy",
     2,
     {"input 'img' of pipeline 'rgb' is float32[3][R + 2][C + 2]", "rgba.npy has 4 channels"},
     {tz("pipeline rgb\nparam R: int64\nparam C: int64\ninput img: float32[3][R + 2][C + 2]\n"
         "stage f(c, x, y): float32 on [0, 2] x [0, R] x [0, C]\n  = img(c, x, y)\noutput f\n"),
      npy("rgba.npy", "|u1", "(4, 5, 6)", 120, '\x07')}},
    {"InputSizeNoParameterGives",
     "run {dir}/p.tz --input img={dir}/odd.npy",
     2,
     {"extent 0 of input 'img' (2 * N) is 7", "no integer N"},
     {tz("pipeline p\nparam N: int64\ninput img: float32[2 * N]\nstage f(x): float32 on [0, "
         "N]\n  = img(x)\noutput f\n"),
      npy("odd.npy", "<f4", "(7,)", 28)}},
    {"InputDisagreesWithParam",
     "run {dir}/p.tz --input img={dir}/a.npy --param N=20",
     2,
     {"N=20 (given)", "is 20", "a.npy's is 16"},
     {tz(kBlur1d), npy("a.npy", "<f4", "(16,)", 64)}},
    {"ParameterNoImageDetermines",
     "run {dir}/p.tz --input img={dir}/a.npy",
     2,
     {"parameter 'K'", "no input given an image", "--param K=VALUE"},
     {tz("pipeline p\nparam N: int64\nparam K: int64\ninput img: float32[N]\nstage f(x): float32 "
         "on [0, K]\n  = img(0)\noutput f\n"),
      npy("a.npy", "<f4", "(16,)", 64)}},
    {"OutputUnknownExtension",
     "run blur --output {dir}/out.bmp",
     2,
     {"--output", "unknown extension '.bmp'"}},
    {"UnknownOutputName",
     "run blur --output nope={dir}/out.png",
     2,
     {"no output named 'nope'", "its outputs: blury"}},

    // Pipeline files: exit 1, the file, line and column.
    {"EmptyPipelineFile", "explain {dir}/p.tz", 1, {"p.tz"}, {tz("")}},
    {"NotAPipelineFile", "explain {dir}/p.tz", 1, {"p.tz:1:"}, {tz("hello world\n")}},
    {"MissingEquals",
     "explain {dir}/p.tz",
     1,
     {"p.tz:5:"},
     {tz("pipeline p\nparam N: int64 = 16\ninput img: float32[N]\nstage f(x): float32 on [1, N - "
         "2]\n  img(x)\noutput f\n")}},
    {"UnknownType",
     "explain {dir}/p.tz",
     1,
     {"p.tz:3:", "float16"},
     {tz("pipeline p\nparam N: int64 = 16\ninput img: float16[N]\noutput img\n")}},
    {"UnknownStageRead",
     "explain {dir}/p.tz",
     1,
     {"p.tz:5:", "g"},
     {tz("pipeline p\nparam N: int64 = 16\ninput img: float32[N]\nstage f(x): float32 on [1, N - "
         "2]\n  = g(x)\noutput f\n")}},
    {"UnknownParameterInABound",
     "explain {dir}/p.tz",
     1,
     {"p.tz:4:", "M"},
     {tz("pipeline p\nparam N: int64 = 16\ninput img: float32[N]\nstage f(x): float32 on [1, M]\n  "
         "= img(x)\noutput f\n")}},
    {"UnknownVariable",
     "explain {dir}/p.tz",
     1,
     {"p.tz:5:", "z"},
     {tz("pipeline p\nparam N: int64 = 16\ninput img: float32[N]\nstage f(x): float32 on [1, N - "
         "2]\n  = img(z)\noutput f\n")}},
    {"UnknownOutput",
     "explain {dir}/p.tz",
     1,
     {"nosuch"},
     {tz("pipeline p\nparam N: int64 = 16\ninput img: float32[N]\nstage f(x): float32 on [1, N - "
         "2]\n  = img(x)\noutput nosuch\n")}},
    {"NoOutput",
     "explain {dir}/p.tz",
     1,
     {"output"},
     {tz("pipeline p\nparam N: int64 = 16\ninput img: float32[N]\nstage f(x): float32 on [1, N - "
         "2]\n  = img(x)\n")}},
    {"StageDeclaredTwice",
     "explain {dir}/p.tz",
     1,
     {"f"},
     {tz("pipeline p\nparam N: int64 = 16\ninput img: float32[N]\nstage f(x): float32 on [1, N - "
         "2]\n  = img(x)\nstage f(x): float32 on [1, N - 2]\n  = img(x)\noutput f\n")}},
    {"TypeMismatch",
     "explain {dir}/p.tz",
     1,
     {"mismatched types", "int32"},
     {tz("pipeline p\nparam N: int64 = 16\ninput img: float32[N]\nstage f(x): float32 on [1, N - "
         "2]\n  = x\noutput f\n")}},
    {"WrongNumberOfIndices",
     "explain {dir}/p.tz",
     1,
     {"img"},
     {tz("pipeline p\nparam N: int64 = 16\ninput img: float32[N]\nstage f(x): float32 on [1, N - "
         "2]\n  = img(x, x)\noutput f\n")}},
    {"FloatIndex",
     "explain {dir}/p.tz",
     1,
     {"img"},
     {tz("pipeline p\nparam N: int64 = 16\ninput img: float32[N]\nstage f(x): float32 on [1, N - "
         "2]\n  = img(1.5f)\noutput f\n")}},
    {"DivisionByConstantZero",
     "explain {dir}/p.tz",
     1,
     {"division by a constant zero"},
     {tz(with_value("a(x) / 0"))}},
    {"UnknownFunction",
     "explain {dir}/p.tz",
     1,
     {"frobnicate"},
     {tz(with_value("frobnicate(a(x))"))}},
    {"UnterminatedExpression",
     "explain {dir}/p.tz",
     1,
     {"p.tz:5:", "expected"},
     {tz(with_value("a(x) +"))}},
    {"UnbalancedParenthesis",
     "explain {dir}/p.tz",
     1,
     {"expected ')' to close the '(' at line 4"},
     {tz(with_value("(a(x) + 1"))}},
    {"IntegerLiteralTooLarge",
     "explain {dir}/p.tz",
     1,
     {"99999999999999999999"},
     {tz(with_value("a(x) + 99999999999999999999"))}},
    {"Int32LiteralTooLarge",
     "explain {dir}/p.tz",
     1,
     {"does not fit in int32"},
     {tz(with_value("a(x) + 3000000000"))}},
    {"FloatLiteralOutOfRange",
     "explain {dir}/p.tz",
     1,
     {"1e999"},
     {tz("pipeline p\ninput a: float32[8]\nstage f(x): float32 on [0, 7]\n  = a(x) * "
         "1e999f\noutput f\n")}},
    {"AccessBeyondTheInput",
     "run {dir}/p.tz --reps 1",
     1,
     {"out-of-bounds access", "reads img(x + 2)", "img's domain is [0, 15]"},
     {tz("pipeline p\nparam N: int64 = 16\ninput img: float32[N]\nstage f(x): float32 on [1, N - "
         "2]\n  = img(x + 2)\noutput f\n")}},
    {"AccessBeyondAStage",
     "run {dir}/p.tz --reps 1",
     1,
     {"out-of-bounds access", "reads g(x + 1)", "g's domain is [0, 7]"},
     {tz("pipeline p\ninput a: float32[8]\nstage g(x): float32 on [0, 7]\n  = a(x)\nstage f(x): "
         "float32 on [0, 7]\n  = g(x + 1)\noutput f\n")}},
    {"Cycle",
     "explain {dir}/p.tz",
     1,
     {"cycle"},
     {tz("pipeline p\nstage f(x): float32 on [0, 7]\n  = g(x)\nstage g(x): float32 on [0, 7]\n  = "
         "f(x)\noutput g\n")}},
    {"CaseAfterDefault",
     "explain {dir}/p.tz",
     1,
     {"p.tz:5:"},
     {tz("pipeline p\ninput a: float32[8]\nstage f(x): float32 on [0, 7]\n  default: 0.0f\n  case "
         "x >= 1: a(x)\noutput f\n")}},
    {"BoundUsesAVariable",
     "explain {dir}/p.tz",
     1,
     {"x"},
     {tz("pipeline p\ninput a: float32[8]\nstage f(x): float32 on [0, x]\n  = a(x)\noutput f\n")}},
    {"BoundIsAFloat",
     "explain {dir}/p.tz",
     1,
     {"p.tz:3:"},
     {tz("pipeline p\ninput a: float32[8]\nstage f(x): float32 on [0, 7.5f]\n  = a(0)\noutput "
         "f\n")}},
    {"ParamDefaultOutsideItsRange",
     "explain {dir}/p.tz",
     1,
     {"outside its range"},
     {tz("pipeline p\nparam n: int64 >= 1 <= 4 = 9\nstage f(x): int32 on [0, n]\n  = x\noutput "
         "f\n")}},
    {"EmptyParamRange",
     "explain {dir}/p.tz",
     1,
     {"empty"},
     {tz("pipeline p\nparam n: int64 >= 5 <= 4 = 4\nstage f(x): int32 on [0, n]\n  = x\noutput "
         "f\n")}},
    {"ParamWithoutValue",
     "run {dir}/p.tz --reps 1",
     1,
     {"parameter 'N'", "has no value", "--param N=VALUE"},
     {tz("pipeline p\nparam N: int64\nstage f(x): int32 on [0, N]\n  = x\noutput f\n")}},
    {"ReductionTargetNotInStage",
     "explain {dir}/p.tz",
     1,
     {"p.tz:"},
     {tz("pipeline p\ninput a: float32[8]\nstage s(x): float32 on [0, 0]\n  init: 0.0f\n  reduce "
         "over r in [0, 7]:\n    t(0) += a(r)\noutput s\n")}},
    {"StatementOutOfPlace", "explain {dir}/p.tz", 1, {"p.tz:2:"}, {tz("pipeline p\n= 3\n")}},
    {"TabsAndGarbage", "explain {dir}/p.tz", 1, {"p.tz:"}, {tz("pipeline p\n\x01\x02\x03\n")}},
    {"BinaryFile", "explain {dir}/p.tz", 1, {"p.tz:"}, {tz(std::string("\0\0\0\xff\xfe", 5))}},

    // Sizes (docs/dsl.md, "Sizes"): exit 1, naming the input or stage and the parameters.
    {"NegativeInputExtent",
     "run {dir}/p.tz --reps 1 --param R=32",
     1,
     {"input 'img'", "float32[R - 100] has extents [-68]", "R=32"},
     {tz("pipeline p\nparam R: int64 = 200\ninput img: float32[R - 100]\nstage a(x): float32 on "
         "[0, R - 101]\n  = img(x)\noutput a\n")}},
    {"EmptyDomain",
     "run {dir}/p.tz --reps 1 --param N=1",
     1,
     {"empty domain", "stage 'f'", "N=1"},
     {tz(kBlur1d)}},
    {"ExtentOverflowsInt64",
     "run blur --param R=9223372036854775807",
     1,
     {"integer overflow", "R + 2", "R=9223372036854775807"}},
    {"BoundOverflowsInt64",
     "run {dir}/p.tz --reps 1 --param N=9223372036854775800",
     1,
     {"integer overflow: N + 10", "N=9223372036854775800"},
     {tz("pipeline p\nparam N: int64 = 5\nstage a(x): float32 on [N, N + 10]\n  = "
         "float32(x)\noutput a\n")}},
    {"DomainBeyondTheIndexRange",
     "run {dir}/p.tz --reps 1",
     1,
     {"stage 'a'", "[2147483640, 2147483650]", "index range"},
     {tz("pipeline p\nparam N: int64 = 2147483640\nstage a(x): float32 on [N, N + 10]\n  = "
         "float32(x)\noutput a\n")}},
    {"LongDomainBeyondTheIndexRange",
     "run {dir}/p.tz --reps 1",
     1,
     {"stage 'a'", "[0, 2200000000]", "index range"},
     {tz("pipeline p\nparam N: int64 = 2200000000\nstage a(x): uint8 on [0, N]\n  = "
         "uint8(x)\noutput a\n")}},
    {"BoxBeyondAnyBuffer",
     "run {dir}/p.tz --reps 1",
     1,
     {"stage 'a'", "bytes, more than any buffer"},
     {tz("pipeline p\nparam N: int64 = 1000000000\nstage a(x, y, z): float64 on [0, N] x [0, N] x "
         "[0, N]\n  = float64(x)\noutput a\n")}},
    {"IntermediateOutOfMemory",
     "run {dir}/p.tz --reps 1 --scheduler naive",
     1,
     {"out of memory: 640003200064 bytes for the buffer a"},
     {tz("pipeline p\nparam N: int64 = 400000\nstage a(x, y): float32 on [0, N] x [0, N]\n  = "
         "float32(x + y)\nstage b(x, y): float32 on [0, 2] x [0, 2]\n  = a(x, y) + a(x + 1, "
         "y)\noutput b\n")}},
    {"ReductionDomainBeyondTheIndexRange",
     "run {dir}/p.tz --reps 1",
     1,
     {"reduction domain", "index range"},
     {tz("pipeline p\nparam N: int64 = 3000000000\nstage s(x): int64 on [0, 0]\n  init: int64(0)\n "
         " reduce over r in [0, N]:\n    s(0) += int64(r)\noutput s\n")}},
    {"ScheduleForSizesBeyondTheIndexRange",
     "schedule blur --param R=9223372036854775000",
     1,
     {"input 'img'", "extent 0 is beyond 1073741824"}},

    // Schedules: exit 1, naming the file and the JSON path.
    {"ScheduleNotJson",
     "run blur --schedule {dir}/s.json",
     1,
     {"s.json", "not valid JSON"},
     {json("{\"groups\": [")}},
    {"ScheduleEmptyFile",
     "run blur --schedule {dir}/s.json",
     1,
     {"s.json", "not valid JSON"},
     {json("")}},
    {"ScheduleNotAnObject",
     "run blur --schedule {dir}/s.json",
     1,
     {"s.json", "expected an object"},
     {json("[1, 2]")}},
    {"ScheduleMissingGroups",
     "run blur --schedule {dir}/s.json",
     1,
     {"missing field \"groups\""},
     {json("{}")}},
    {"ScheduleUnknownField",
     "run blur --schedule {dir}/s.json",
     1,
     {"unknown field \"tile_size\""},
     {json(R"({"groups": [{"stages": ["blurx"], "tile_size": [8, 8]}]})")}},
    {"ScheduleDuplicateKey",
     "run blur --schedule {dir}/s.json",
     1,
     {"the key \"groups\" appears twice"},
     {json(R"({"groups": [], "groups": []})")}},
    {"ScheduleNestedTooDeep",
     "run blur --schedule {dir}/s.json",
     1,
     {"nests deeper than 16 levels"},
     {json(std::string(100000, '[') + std::string(100000, ']'))}},
    {"ScheduleTileSizeZero",
     "run blur --schedule {dir}/s.json",
     1,
     {"tile_sizes[0]", "positive integer"},
     {json(R"({"groups": [{"stages": ["blurx", "blury"], "tile_sizes": [0, 8]}]})")}},
    {"ScheduleTileSizeHuge",
     "run blur --schedule {dir}/s.json",
     1,
     {"tile_sizes[1]", "at most 1073741824"},
     {json(
         R"({"groups": [{"stages": ["blurx", "blury"], "tile_sizes": [8, 18446744073709551615]}]})")}},
    {"ScheduleTileSizeAString",
     "run blur --schedule {dir}/s.json",
     1,
     {"tile_sizes[0]", "got \"8\""},
     {json(R"({"groups": [{"stages": ["blurx", "blury"], "tile_sizes": ["8", 8]}]})")}},
    {"ScheduleBadShape",
     "run blur --schedule {dir}/s.json",
     1,
     {"shape", "trapezoid"},
     {json(R"({"groups": [{"stages": ["blurx", "blury"], "shape": "trapezoid"}]})")}},
    {"ScheduleBadParallelSchedule",
     "run blur --schedule {dir}/s.json",
     1,
     {"parallel_schedule", "guided"},
     {json(R"({"groups": [{"stages": ["blurx", "blury"], "parallel_schedule": "guided"}]})")}},
    {"ScheduleParallelDimsOutOfRange",
     "run blur --schedule {dir}/s.json",
     1,
     {"parallel_tile_dims", "from 0 to 64", "99"},
     {json(R"({"groups": [{"stages": ["blurx", "blury"], "parallel_tile_dims": 99}]})")}},
    {"ScheduleUnknownStage",
     "run blur --schedule {dir}/s.json",
     1,
     {"nosuch"},
     {json(R"({"groups": [{"stages": ["blurx", "blury", "nosuch"]}]})")}},
    {"ScheduleStageMissing",
     "run blur --schedule {dir}/s.json",
     1,
     {"blury"},
     {json(R"({"groups": [{"stages": ["blurx"]}]})")}},
    {"ScheduleStageTwice",
     "run blur --schedule {dir}/s.json",
     1,
     {"blurx"},
     {json(R"({"groups": [{"stages": ["blurx", "blury"]}, {"stages": ["blurx"]}]})")}},
    {"ScheduleWrongTileCount",
     "run blur --schedule {dir}/s.json",
     1,
     {"tile"},
     {json(R"({"groups": [{"stages": ["blurx", "blury"], "tile_sizes": [8, 8, 8, 8]}]})")}},
    {"ScheduleBadStorage",
     "run blur --schedule {dir}/s.json",
     1,
     {"storage.blurx", "register"},
     {json(R"({"groups": [{"stages": ["blurx", "blury"]}], "storage": {"blurx": "register"}})")}},
    {"ScheduleInlinedOutput",
     "run blur --schedule {dir}/s.json",
     1,
     {"blury"},
     {json(R"({"groups": [{"stages": ["blurx", "blury"]}], "storage": {"blury": "inline"}})")}},
    {"ScheduleWrongVersion",
     "run blur --schedule {dir}/s.json",
     1,
     {"version"},
     {json(R"({"version": 2, "groups": []})")}},
    {"MachineFileMissing", "schedule blur --machine {dir}/none.json", 2, {"none.json"}},
    {"MachineFileUnknownField",
     "schedule blur --machine {dir}/m.json",
     1,
     {"unknown field 'gpus'"},
     {{"m.json", R"({"gpus": 8})"}}},
    {"MachineFileDuplicateKey",
     "schedule blur --machine {dir}/m.json",
     1,
     {"the key \"cores\" appears twice"},
     {{"m.json", R"({"cores": 8, "cores": 2})"}}},

    // Environment: exit 1 with a message naming what is wrong.
    {"MissingCompiler",
     "run blur --param R=16 --param C=16 --reps 1 --scheduler naive",
     1,
     {"/nonexistent/c++"},
     {},
     "CXX=/nonexistent/c++ TRAPEZE_CACHE_DIR={dir}/cache"},
    {"CompilerFlagsRejected",
     "run blur --param R=16 --param C=16 --reps 1 --scheduler naive",
     1,
     {"--no-such-flag"},
     {},
     "TRAPEZE_CXXFLAGS=--no-such-flag TRAPEZE_CACHE_DIR={dir}/cache"},
    {"CacheDirIsAFile",
     "run blur --param R=16 --param C=16 --reps 1 --scheduler naive",
     1,
     {"cache"},
     {{"cachefile", "not a directory\n"}},
     "TRAPEZE_CACHE_DIR={dir}/cachefile"},
    {"OutputUnwritable",
     "run blur --param R=16 --param C=16 --reps 1 --scheduler naive --output "
     "{dir}/no/such/dir/out.png",
     1,
     {"out.png"}},
    {"OutputShapeNotAnImage",
     "run {dir}/p.tz --reps 1 --output {dir}/out.png",
     1,
     {"output 'f'", "unsupported layout", ".npy"},
     {tz("pipeline p\nstage f(x, y, z, w): float32 on [0, 1] x [0, 1] x [0, 1] x [0, 1]\n  = "
         "1.0f\noutput f\n")}},
    {"BenchJsonUnwritable",
     "bench blur --small --reps 1 --schedulers naive --json {dir}/no/such/b.json",
     1,
     {"b.json"}},
};

class Catalog : public testing::TestWithParam<CatalogCase> {};

std::string replace_dir(std::string text, const fs::path& dir) {
  for (std::size_t at; (at = text.find("{dir}")) != std::string::npos;)
    text.replace(at, 5, dir.string());
  return text;
}

TEST_P(Catalog, ExitCodeAndMessage) {
  const CatalogCase& c = GetParam();
  const fs::path dir =
      fs::temp_directory_path() / ("trapeze_catalog_" + std::to_string(::getpid()) + "_" + c.name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  for (const auto& [name, content] : c.files)
    std::ofstream(dir / name, std::ios::binary) << content;
  const testing_support::CliResult r = testing_support::run_cli(
      TRAPEZE_CLI_PATH, replace_dir(c.args, dir), dir, replace_dir(c.environment, dir));
  EXPECT_EQ(r.exit_code, c.exit_code) << c.args << "\nstderr: " << r.err;
  if (c.exit_code == 2) {
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "one line: " << r.err;
  }
  // The message starts a line (bench prints progress lines before it).
  EXPECT_TRUE(r.err.rfind("trapeze: ", 0) == 0 || r.err.find("\ntrapeze: ") != std::string::npos)
      << r.err;
  EXPECT_LT(r.err.size(), 4000u) << "a bounded message";
  for (const std::string& word : c.words)
    EXPECT_THAT(r.err, testing::HasSubstr(replace_dir(word, dir))) << c.args;
  fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(Errors, Catalog, testing::ValuesIn(kCases),
                         [](const testing::TestParamInfo<CatalogCase>& param_info) {
                           return std::string(param_info.param.name);
                         });

TEST(CatalogSize, AtLeastAHundredCases) { EXPECT_GE(kCases.size(), 100u); }

} // namespace
} // namespace trapeze
