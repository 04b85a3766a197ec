// Encoder: unit-cube features for the surrogate models.
#include "tune/encoding.h"

#include <cmath>

namespace cprof::tune {

Encoder::Encoder(const SearchSpace& space) : space_(space) {
  for (const Parameter& p : space.params()) {
    columns_.push_back(dims_);
    // A parameter with a single value carries no information: no column.
    bool constant = !p.continuous() && p.cardinality() <= 1;
    int w = constant ? 0 : (p.ordered() ? 1 : static_cast<int>(p.cardinality()));
    widths_.push_back(w);
    dims_ += w;
  }
}

void Encoder::Encode(const Config& c, double* out) const {
  constexpr double kOneHot = 0.7071067811865476;
  for (size_t i = 0; i < space_.size(); ++i) {
    const Parameter& p = space_.param(i);
    double* col = out + columns_[i];
    double coord = i < c.size() ? c[i] : std::nan("");
    if (widths_[i] == 0) continue;
    if (p.ordered()) {
      col[0] = std::isnan(coord) ? 0.0 : p.Encode(coord);
    } else {
      for (int k = 0; k < widths_[i]; ++k) col[k] = 0.0;
      if (!std::isnan(coord)) col[static_cast<int>(coord)] = kOneHot;
    }
  }
}

Eigen::MatrixXd Encoder::EncodeAll(const std::vector<Config>& configs) const {
  Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> X(configs.size(), dims_);
  for (size_t r = 0; r < configs.size(); ++r) Encode(configs[r], X.row(r).data());
  return X;
}

Eigen::MatrixXd Encoder::EncodeAll(const std::vector<const Config*>& configs) const {
  Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> X(configs.size(), dims_);
  for (size_t r = 0; r < configs.size(); ++r) Encode(*configs[r], X.row(r).data());
  return X;
}

}  // namespace cprof::tune
