// The finding category catalogue (category.h).
#include "analysis/diagnose/category.h"

#include <array>

namespace cprof {
namespace {

struct CategoryInfo {
  Category category;
  std::string_view id;
  std::string_view doc;
};

constexpr std::array kCategories = {
#define CPROF_CATEGORY_INFO(e, id, doc) CategoryInfo{Category::e, id, doc},
    CPROF_FINDING_CATEGORIES(CPROF_CATEGORY_INFO)
#undef CPROF_CATEGORY_INFO
};

}  // namespace

std::string_view CategoryId(Category c) { return kCategories[static_cast<size_t>(c)].id; }
std::string_view CategoryDoc(Category c) { return kCategories[static_cast<size_t>(c)].doc; }

std::optional<Category> CategoryFromId(std::string_view id) {
  for (const CategoryInfo& info : kCategories)
    if (info.id == id) return info.category;
  return std::nullopt;
}

std::vector<std::string_view> CategoryIds() {
  std::vector<std::string_view> ids;
  for (const CategoryInfo& info : kCategories) ids.push_back(info.id);
  return ids;
}

}  // namespace cprof
