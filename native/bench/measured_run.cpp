#include "measured_run.hpp"

#include <cmath>
#include <iomanip>
#include <sstream>

namespace attn::bench {

std::string json_number(double x) {
    if (!std::isfinite(x)) return "null";
    std::ostringstream s;
    s << std::setprecision(6) << x;
    return s.str();
}

}  // namespace attn::bench
