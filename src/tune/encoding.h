// Encoder: configurations -> points in the unit cube, the input of the surrogate models.
//
//   Encoder enc(space);
//   Eigen::MatrixXd X = enc.EncodeAll(configs);   // one row per configuration, enc.dims() columns
//
// Ordered parameters (int, float, ordinal) take one column: Parameter::Encode (index or (log)
// value scaled to [0, 1]). Categorical parameters take one column per value (one-hot, scaled by
// 1/sqrt(2) so that changing the value moves a point by 1, like an ordinal step across the range).
// Inactive parameters encode as all zeros; parameters with a single value take no column.
#pragma once

#include <Eigen/Dense>
#include <vector>

#include "tune/search_space.h"

namespace cprof::tune {

class Encoder {
 public:
  explicit Encoder(const SearchSpace& space);
  int dims() const { return dims_; }
  void Encode(const Config& c, double* out) const;
  Eigen::MatrixXd EncodeAll(const std::vector<Config>& configs) const;
  Eigen::MatrixXd EncodeAll(const std::vector<const Config*>& configs) const;
  // The first column of parameter i, and how many columns it takes.
  int column(size_t i) const { return columns_[i]; }
  int width(size_t i) const { return widths_[i]; }

 private:
  const SearchSpace& space_;
  std::vector<int> columns_, widths_;
  int dims_ = 0;
};

}  // namespace cprof::tune
